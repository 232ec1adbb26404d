#!/usr/bin/env node
console.log('flowdeck: placeholder');
