// The Templates dialog's model: categories with their counts in the server's order, the search
// (every word, in title, description, category or tags) and the category narrowing the gallery,
// and thumbnails fetched once each, at most four at a time, and none once the dialog closed.
import { describe, expect, it } from 'vitest';
import type { TemplateView } from '@shared/ipc/contract';
import { ALL_TEMPLATES, ThumbnailQueue, categoriesOf, filterTemplates } from '../../src/renderer/src/lib/templates/gallery-model';

function template(name: string, category: string, extra: Partial<TemplateView> = {}): TemplateView {
  return {
    source: 'default',
    name,
    title: name.replace(/_/g, ' '),
    description: '',
    category,
    group: null,
    mediaType: 'image',
    tags: [],
    thumbnail: `/templates/${name}-1.webp`,
    ...extra,
  };
}

const GALLERY = [
  template('text_to_image', 'Basics', { description: 'Paint a landscape from a prompt.' }),
  template('video_and_audio', 'Basics', { tags: ['Video'] }),
  template('inpaint', 'Image editing', { description: 'Fill a masked area.' }),
  template('mask_example', 'my-pack', { source: 'my-pack' }),
];

const names = (list: TemplateView[]): string[] => list.map((t) => t.name);
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('the template gallery model', () => {
  it('lists categories in order with counts, and narrows by search and category', () => {
    expect(categoriesOf(GALLERY)).toEqual([
      { title: ALL_TEMPLATES, count: 4 },
      { title: 'Basics', count: 2 },
      { title: 'Image editing', count: 1 },
      { title: 'my-pack', count: 1 },
    ]);
    expect(names(filterTemplates(GALLERY, 'landscape', ALL_TEMPLATES))).toEqual(['text_to_image']);
    expect(names(filterTemplates(GALLERY, 'VIDEO', ALL_TEMPLATES))).toEqual(['video_and_audio']);
    // Every word must be found (in any field).
    expect(names(filterTemplates(GALLERY, ' fill  masked ', ALL_TEMPLATES))).toEqual(['inpaint']);
    expect(filterTemplates(GALLERY, 'fill nothing', ALL_TEMPLATES)).toEqual([]);
    expect(names(filterTemplates(GALLERY, '', 'Basics'))).toEqual(['text_to_image', 'video_and_audio']);
    expect(filterTemplates(GALLERY, 'mask', 'Basics')).toEqual([]);
    expect(names(filterTemplates(GALLERY, 'pack', ALL_TEMPLATES))).toEqual(['mask_example']);
  });

  it('fetches each thumbnail once, at most four at a time, and stops when closed', async () => {
    const pending: (() => void)[] = [];
    const asked: string[] = [];
    const delivered = new Map<string, string | null>();
    let inFlight = 0;
    let most = 0;
    const queue = new ThumbnailQueue(
      (path) => {
        asked.push(path);
        inFlight += 1;
        most = Math.max(most, inFlight);
        return new Promise((resolve, reject) =>
          pending.push(() => {
            inFlight -= 1;
            if (path.endsWith('t2-1.webp')) reject(new Error('unreadable'));
            else resolve(`data:image/webp;base64,${btoa(path)}`);
          }),
        );
      },
      (path, dataUrl) => delivered.set(path, dataUrl),
    );
    const paths = Array.from({ length: 10 }, (_, i) => `/templates/t${i}-1.webp`);
    for (const path of [...paths, paths[0]!, paths[1]!]) queue.want(path);
    expect(asked).toEqual(paths.slice(0, 4));
    // Answers free room for the next ones; a failed one is delivered as "no picture".
    for (let i = 0; i < 3; i += 1) {
      pending.shift()!();
      await tick();
    }
    expect(asked).toEqual(paths.slice(0, 7));
    expect(delivered.get(paths[0]!)).toBe(`data:image/webp;base64,${btoa(paths[0]!)}`);
    expect(delivered.get(paths[2]!)).toBeNull();
    // A path already asked for is not asked again.
    queue.want(paths[0]!);
    expect(asked).toHaveLength(7);
    queue.close();
    queue.want('/templates/late-1.webp');
    while (pending.length > 0) {
      pending.shift()!();
      await tick();
    }
    expect(asked).toHaveLength(7);
    expect(delivered.size).toBe(3);
    expect(most).toBe(4);
  });
});
