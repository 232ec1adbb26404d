// A sine tone as a WAV file: RIFF/WAVE, 16-bit PCM, mono. Short fades at both ends avoid clicks.

export const WAV_SAMPLE_RATE = 22050;

export function sineWav(seconds: number, frequency: number, sampleRate = WAV_SAMPLE_RATE): Uint8Array {
  const samples = Math.max(1, Math.round(seconds * sampleRate));
  const fade = Math.min(Math.round(0.02 * sampleRate), Math.floor(samples / 4));
  const dataBytes = samples * 2;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  const amplitude = 0.5 * 32767;
  for (let i = 0; i < samples; i++) {
    const envelope = fade === 0 ? 1 : Math.min(1, i / fade, (samples - 1 - i) / fade);
    const value = Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * amplitude * envelope);
    view.setInt16(44 + i * 2, value, true);
  }
  return out;
}
