console.log('harness placeholder');
