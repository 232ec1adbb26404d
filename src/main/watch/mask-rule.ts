// The naming rule that pairs a mask with its image: "{stem}.mask.png" means photo.mask.png belongs
// to photo.png (or photo.jpg) in the same folder. A file that matches the rule is a mask, never an
// input of its own.
import { basename, dirname, extname, join } from 'node:path';

export function checkMaskRule(rule: string): string | null {
  const count = rule.split('{stem}').length - 1;
  if (count !== 1) return `The mask rule "${rule}" must contain {stem} exactly once (for example {stem}.mask.png).`;
  if (/[/\\]/.test(rule)) return `The mask rule "${rule}" must name a file beside the image, without folders.`;
  if (rule === '{stem}' || !/\.[a-z0-9]+$/i.test(rule)) return `The mask rule "${rule}" must end with a file extension (for example {stem}.mask.png).`;
  return null;
}

function escape(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

export class MaskRule {
  private readonly rule: string;
  private readonly matcher: RegExp;

  constructor(rule: string) {
    const problem = checkMaskRule(rule);
    if (problem) throw new Error(problem);
    this.rule = rule;
    const [before, after] = rule.split('{stem}') as [string, string];
    this.matcher = new RegExp(`^${escape(before)}(.+)${escape(after)}$`, 'i');
  }

  /** Whether `baseName` is a mask by this rule. */
  isMask(baseName: string): boolean {
    return this.matcher.test(baseName);
  }

  /** The mask path that would belong to `imagePath`. */
  maskFor(imagePath: string): string {
    const name = basename(imagePath);
    const stem = name.slice(0, name.length - extname(name).length);
    return join(dirname(imagePath), this.rule.replace('{stem}', stem));
  }
}
