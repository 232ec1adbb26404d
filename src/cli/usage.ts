// The CLI's usage lines and its help text, apart from the commands' code: `flowdeck help` and a
// usage error print them without loading any command (each command's code is loaded only when it
// runs, see index.ts), and the commands quote their own line in their usage errors.

export const RUN_USAGE = `flowdeck run WORKFLOW.json [--server URL]... [--local] [--set NODE.INPUT=VALUE]...
             [--upload NODE.INPUT=FILE]... [--mask NODE.INPUT=IMAGE,MASK]... [--out DIR]
             [--json] [--timeout SECONDS] [--save-previews] [--repeat N] [--concurrency N]
  --repeat N runs it N times; repeating --server spreads the runs over a pool of servers
  (--concurrency: runs per server at once, default 1; the cloud: the account's limit).`;

export const CONVERT_USAGE = `flowdeck convert FILE [--server URL | --object-info FILE] [--local] [--json] [--out FILE]`;

const DEMO_USAGE = 'flowdeck demo [--port N] [--key KEY] [--local] [--time-scale X] [--v2 | --v2-only [--token T]]';

export const WATCH_USAGE = `flowdeck watch DIR --workflow WF.json --bind NODE.INPUT [--server URL]... [--local] [--out DIR]
             [--concurrency N] [--once] [--json] [--recursive] [--move] [--name RULE]
             [--settle MS] [--retry-failed]
  Repeating --server makes a pool: each file goes to the least-loaded server that can run the
  workflow, and --concurrency is then per server (default 1; the cloud: the account's limit).`;

export const LIBRARY_USAGE = `flowdeck library list [--type image|video|audio|model|other] [--since DATE] [--until DATE]
                       [--workflow NAME] [--server URL|PROFILE_ID] [--all] [--limit N] [--offset N] [--json]
  flowdeck library search QUERY [the same options]`;

export const HELP = `flowdeck: run node-graph workflows on the cloud service, a local server or the built-in demo.

Usage:
  ${RUN_USAGE}
  ${CONVERT_USAGE}
  ${DEMO_USAGE}
  ${WATCH_USAGE}
  flowdeck login [--server URL] [--no-verify]     store the API key in the OS keychain (read from stdin)
  flowdeck logout [--server URL]                  remove it
  flowdeck queue [--server URL] [--local] [--json]
  flowdeck cancel ID... [--server URL] [--local]
  flowdeck interrupt [ID] [--all] [--server URL] [--local]
                                                  local: stops job ID; cloud: stops ALL running jobs
                                                  of the account (--all needed when more than one runs)
  ${LIBRARY_USAGE}

WORKFLOW may be API-format JSON, a UI-format workflow (the editor's graph; converted with the
server's node definitions) or an output image that carries its workflow. flowdeck convert prints
the API prompt such a file becomes; it exits 2, listing them, when the server lacks node classes.

Every output of flowdeck run is also kept in the outputs library: <data folder>/library, or
FLOWDECK_LIBRARY_DIR (in dated folders, each file once).

The API key is read from FLOWDECK_API_KEY first, then from the OS keychain.
All state lives in one data folder: FLOWDECK_DATA_DIR, or the OS's per-user app data folder.
Exit codes: 0 success; 1 the job failed, was cancelled or rejected; 2 usage error or unreadable
input file; 3 key missing or rejected; 4 credits or subscription; 5 server or network failure;
6 the local data store cannot be used (a damaged store is moved aside to
flowdeck.sqlite.corrupt-<time> and a fresh one started, with a warning; 6 only when even that fails).
`;
