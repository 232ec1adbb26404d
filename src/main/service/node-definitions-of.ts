// The node definitions of a few classes, without the whole list. A local server answers
// GET /api/object_info/{class} with that one class (`{}` for a class it lacks), where the whole
// /api/object_info of an install with many custom nodes is megabytes that take seconds to build,
// send and parse; the CLI's checks of --bind and --set need one or two classes. The cloud publishes
// only the whole list (cloud-api/openapi-v1.yaml), so it is asked for the whole list, as before.
import type { HttpTransport } from './http';
import { parseNodeDefinitions, type NodeDefinition, type NodeDefinitions } from './object-info';
import type { ServerKind } from './types';

/** More classes than this are read with the whole list: one request instead of many. */
const MAX_ONE_CLASS_ASKS = 8;

/** A class name that stays one path segment (servers decode %2F and dot segments before routing). */
function isPathSegment(className: string): boolean {
  return className !== '' && className !== '.' && className !== '..' && !className.includes('/') && !className.includes('\\');
}

/**
 * The definitions of those of `classes` the server has. A one-class answer without its class (not
 * installed, or an older or foreign server without the route: 404, 405) falls back to the whole
 * list (`readAll`), which then decides, so the answer is never less than the whole list's.
 */
export async function readDefinitionsOf(
  http: HttpTransport,
  kind: ServerKind,
  classes: readonly string[],
  readAll: () => Promise<NodeDefinitions>,
  signal?: AbortSignal,
): Promise<NodeDefinitions> {
  const wanted = [...new Set(classes)];
  if (kind !== 'local' || wanted.length > MAX_ONE_CLASS_ASKS || !wanted.every(isPathSegment)) return pick(await readAll(), wanted);
  const found = await Promise.all(wanted.map((className) => readOneClass(http, className, signal)));
  if (found.some((definition) => definition === null)) return pick(await readAll(), wanted);
  return new Map(wanted.map((className, i) => [className, found[i]!]));
}

function pick(all: NodeDefinitions, wanted: readonly string[]): NodeDefinitions {
  const some: NodeDefinitions = new Map();
  for (const className of wanted) {
    const definition = all.get(className);
    if (definition) some.set(className, definition);
  }
  return some;
}

async function readOneClass(http: HttpTransport, className: string, signal?: AbortSignal): Promise<NodeDefinition | null> {
  const what = `the definition of ${className}`;
  const answer = await http.request({
    method: 'GET',
    path: `/api/object_info/${encodeURIComponent(className)}`,
    what,
    // One class can still be large (a combo listing thousands of model files).
    maxBytes: http.limits.objectInfoBytes,
    ...(signal ? { signal } : {}),
  });
  if (answer.status === 404 || answer.status === 405) return null;
  if (answer.status < 200 || answer.status > 299) throw await http.errorFor(answer, what);
  return parseNodeDefinitions(answer.text).get(className) ?? null;
}
