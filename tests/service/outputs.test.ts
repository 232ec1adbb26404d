import { describe, expect, it } from 'vitest';
import { collectHistoryOutputs, collectNodeOutputs } from '@main/service/outputs';

describe('collectNodeOutputs', () => {
  it('takes file arrays under any key: images, video, videos, audio, gifs, 3d and custom ones', () => {
    const output = {
      images: [{ filename: 'a.png', subfolder: '', type: 'output' }],
      video: [{ filename: 'v.mp4', subfolder: 'vids', type: 'output' }],
      videos: [{ filename: 'v2.mp4', subfolder: '', type: 'output' }],
      audio: [{ filename: 's.flac', subfolder: '', type: 'output' }],
      gifs: [{ filename: 'g.gif', subfolder: '', type: 'output', format: 'image/gif' }],
      '3d': [{ filename: 'm.glb', subfolder: '', type: 'output' }],
      meshes: [{ filename: 'x.obj', subfolder: '', type: 'temp' }],
    };
    const files = collectNodeOutputs('9', output);
    expect(files.map((f) => `${f.key}:${f.filename}`)).toEqual([
      'images:a.png',
      'video:v.mp4',
      'videos:v2.mp4',
      'audio:s.flac',
      'gifs:g.gif',
      '3d:m.glb',
      'meshes:x.obj',
    ]);
    expect(files[1]).toEqual({ filename: 'v.mp4', subfolder: 'vids', type: 'output', node: '9', key: 'video' });
    expect(files[6]?.type).toBe('temp');
  });

  it('skips non-arrays, booleans such as animated:[true], text and malformed items', () => {
    const output = {
      animated: [true],
      text: ['hello'],
      count: 3,
      images: [null, 5, { subfolder: '' }, { filename: 7 }, { filename: '' }, { filename: 'ok.png' }],
      nested: { images: [{ filename: 'no.png' }] },
    };
    expect(collectNodeOutputs('1', output)).toEqual([{ filename: 'ok.png', subfolder: '', type: 'output', node: '1', key: 'images' }]);
  });

  it('de-duplicates the same file under two keys', () => {
    const ref = { filename: 'a.webp', subfolder: '', type: 'output' };
    const files = collectNodeOutputs('2', { images: [ref, ref], animated: [true], gifs: [ref] });
    expect(files).toHaveLength(1);
    // Same name in another subfolder or of another type is a different file.
    expect(collectNodeOutputs('2', { images: [ref, { ...ref, subfolder: 's' }, { ...ref, type: 'temp' }] })).toHaveLength(3);
  });

  it('null or non-object output gives nothing', () => {
    expect(collectNodeOutputs('1', null)).toEqual([]);
    expect(collectNodeOutputs('1', undefined)).toEqual([]);
    expect(collectNodeOutputs('1', [{ filename: 'a.png' }])).toEqual([]);
  });
});

describe('collectHistoryOutputs', () => {
  it('walks every node and de-duplicates across nodes', () => {
    const outputs = {
      '3': { images: [{ filename: 'inverted_00001_.png', subfolder: 'samples', type: 'output' }] },
      '4': {
        images: [{ filename: 'inverted_00001_.png', subfolder: 'samples', type: 'output' }],
        audio: [{ filename: 'x.wav', subfolder: '', type: 'output' }],
      },
      '5': null,
    };
    expect(collectHistoryOutputs(outputs)).toEqual([
      { filename: 'inverted_00001_.png', subfolder: 'samples', type: 'output', node: '3', key: 'images' },
      { filename: 'x.wav', subfolder: '', type: 'output', node: '4', key: 'audio' },
    ]);
    expect(collectHistoryOutputs({})).toEqual([]);
    expect(collectHistoryOutputs(null)).toEqual([]);
  });
});
