// Text widgets whose definition sets `dynamicPrompts`: at queue time the editor strips comments and
// replaces each `{a|b|c}` with one option picked at random (first `{` to first `}`), so the server never
// sees the braces. Done here the same way, including the randomness: that is the feature.
const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/.*/g;

export function expandDynamicPrompt(text: string, random: () => number = Math.random): string {
  let prompt = text.replace(COMMENTS, '');
  // As the editor: escaped braces (\{ \}) are skipped when finding the next group.
  for (;;) {
    const start = prompt.replace('\\{', '00').indexOf('{');
    const end = prompt.replace('\\}', '00').indexOf('}');
    if (start < 0 || end < 0 || end < start) return prompt;
    const options = prompt.substring(start + 1, end).split('|');
    const choice = options[Math.floor(random() * options.length)] ?? '';
    prompt = prompt.substring(0, start) + choice + prompt.substring(end + 1);
  }
}
