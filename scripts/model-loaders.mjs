// The editor's model loaders as a server's node definitions describe them (legacy combos of file
// names), for places that need a server with models: the model picker's spec, which adds them to
// a demo service, and the screenshots, which add them through a proxy.

/** One node definition in the server's object_info shape, in the loaders category. */
export function loaderDefinition(name, displayName, required, outputs) {
  return {
    input: { required },
    input_order: { required: Object.keys(required) },
    output: outputs,
    output_is_list: outputs.map(() => false),
    output_name: outputs,
    name,
    display_name: displayName,
    description: '',
    python_module: 'nodes',
    category: 'loaders',
    output_node: false,
  };
}
