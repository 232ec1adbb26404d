// flowdeck convert FILE: a UI-format workflow (or an output image) -> the API prompt the editor
// would have queued, with the node definitions of a server (--server/--local, else the active
// profile) or of an object_info file. An API-format file or an image's `prompt` passes as is.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseNodeDefinitionsReport, type NodeDefinitions } from '@main/service/object-info';
import { ServiceError } from '@main/service/errors';
import { writeFileAtomically } from '@main/files/publish';
import { stringifyJsonExact } from '@shared/json';
import { parseCommandArgs } from '../args';
import { fetchNodeDefinitions, resolveServer, type CliEnvironment } from '../connection';
import { ExitCode, UsageError } from '../errors';
import { CONVERT_USAGE } from '../usage';
import { readWorkflowFile } from '../workflow-file';
import type { CliIo } from './run';
import type { WorkflowSource } from '@main/workflow/workflow-reading';

async function definitionsFromFile(path: string): Promise<NodeDefinitions> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the object_info file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  try {
    return parseNodeDefinitionsReport(text).definitions;
  } catch (error) {
    if (error instanceof ServiceError) throw new UsageError(`${path}: ${error.message.replace('The server sent node definitions', 'The node definitions')}`);
    throw error;
  }
}

export async function convertCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const { values, positionals } = parseCommandArgs('convert', argv, {
    server: { type: 'string' },
    local: { type: 'boolean' },
    'object-info': { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError(`Expected one workflow file.\nUsage: ${CONVERT_USAGE}`);
  const objectInfo = values['object-info'];
  if (objectInfo !== undefined && (values.server !== undefined || values.local)) {
    throw new UsageError(`--object-info and --server/--local exclude each other.\nUsage: ${CONVERT_USAGE}`);
  }
  const path = resolve(positionals[0]!);
  const file = await readWorkflowFile(
    path,
    () =>
      objectInfo !== undefined
        ? definitionsFromFile(resolve(objectInfo))
        : fetchNodeDefinitions(resolveServer({ server: values.server, local: values.local }, environment), environment),
    { acceptEmpty: true },
  );
  for (const warning of file.warnings) io.stderr.write(`warning: ${warning}\n`);
  const text = values.json ? stringifyJsonExact(file.prompt) : stringifyJsonExact(file.prompt, 2);
  if (values.out !== undefined) {
    const out = resolve(values.out);
    try {
      await writeFileAtomically(out, `${text}\n`);
    } catch (error) {
      throw new UsageError(`Cannot write ${out}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
    }
    if (!values.json) io.stderr.write(`wrote the API prompt (${Object.keys(file.prompt).length} nodes, from ${describeOrigin(file.origin)}) to ${out}\n`);
  } else {
    io.stdout.write(`${text}\n`);
  }
  return ExitCode.ok;
}

function describeOrigin(origin: WorkflowSource): string {
  switch (origin) {
    case 'api':
      return 'an API-format file';
    case 'ui':
      return 'a UI-format workflow';
    case 'image-prompt':
      return "the image's prompt";
    case 'image-workflow':
      return "the image's workflow";
  }
}
