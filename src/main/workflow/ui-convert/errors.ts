// The one error the UI-format converter throws: what went wrong, which node, and (for custom nodes
// the server lacks) every missing class at once, so the user can install them in one go.
export class UiConversionError extends Error {
  constructor(
    message: string,
    /** Classes neither the server nor the file's own widget names can describe. */
    readonly missingClasses: string[] = [],
    /** The node the problem is about, when there is one. */
    readonly nodeId: string | null = null,
  ) {
    super(message);
    this.name = 'UiConversionError';
  }
}
