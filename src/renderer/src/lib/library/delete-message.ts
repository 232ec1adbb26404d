// What a library delete really did: a file another item still uses stays where it is, so saying
// "moved to the trash" for it would be untrue.
export function deleteMessage(removed: number, keptShared: number): string {
  const trashed = removed - keptShared;
  const items = (n: number): string => (n === 1 ? '1 output' : `${n} outputs`);
  if (keptShared === 0) return `Moved ${items(removed)} to the trash.`;
  const kept =
    keptShared === 1 ? 'its file stays, because another library item uses the same file' : 'their files stay, because other library items use the same files';
  if (trashed === 0) return `Removed ${items(keptShared)} from the library; ${kept}.`;
  return `Moved ${items(trashed)} to the trash. Removed ${items(keptShared)} from the library only: ${kept}.`;
}
