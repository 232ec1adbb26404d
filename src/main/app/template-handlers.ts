// templates.list / thumbnail / open: "New from template". The active server's gallery is read
// through the service layer (service/templates.ts: bounded, validated, the key only to the
// server's own origin); thumbnails reach the page as data: URLs (its CSP allows img-src data:, and
// the renderer has no network); a template opens the way a workflow file does (workflow-files.ts:
// a UI-format template is converted with the active server's node definitions).
import type { CallHandlers } from '@shared/ipc/contract';
import type { Profile } from '@main/config/settings';
import { profileConnection } from '@main/service/profile-server';
import { TemplateGallery } from '@main/service/templates';
import type { ProfileDirectory } from './profile-directory';
import type { LogLevel } from './ports';
import type { ProfileSession } from './session';
import { workflowViewOfText } from './workflow-files';
import { sessionDefinitions } from './workflow-handlers';

export interface TemplateHandlerContext {
  profiles: Pick<ProfileDirectory, 'target' | 'serverFor' | 'keyFor'>;
  /** The active session: its node definitions convert a template. */
  session(): ProfileSession | null;
  log(level: LogLevel, message: string): void;
}

type TemplateCalls = 'templates.list' | 'templates.thumbnail' | 'templates.open';

export function createTemplateHandlers(ctx: TemplateHandlerContext): Pick<CallHandlers, TemplateCalls> {
  /** The active profile's gallery; a proxy's templates are those of the server behind it. */
  const gallery = async (): Promise<TemplateGallery> => {
    const profile: Profile = ctx.profiles.target(undefined);
    const server = await ctx.profiles.serverFor(profile);
    const behind = profile.kind === 'demo' ? undefined : profileConnection(profile).v1BaseUrl;
    return new TemplateGallery(behind ? { ...server, baseUrl: behind } : server, {
      apiKey: () => ctx.profiles.keyFor(profile),
      logger: (line) => ctx.log('info', line),
    });
  };
  const definitions = sessionDefinitions(() => ctx.session());

  return {
    'templates.list': async () => {
      const listing = await (await gallery()).list();
      for (const problem of listing.problems) ctx.log('warn', `templates: ${problem}`);
      return {
        available: listing.available,
        templates: listing.templates,
        note: listing.problems.length > 0 ? `Some templates could not be read: ${listing.problems.join(' ')}` : null,
      };
    },

    'templates.thumbnail': async ({ path }) => {
      const picture = await (await gallery()).thumbnail(path);
      return { dataUrl: picture ? `data:${picture.mime};base64,${picture.bytes.toString('base64')}` : null };
    },

    'templates.open': async ({ source, name }) => {
      const text = await (await gallery()).workflowText(source, name);
      return { opened: true, name: `${name}.json`, path: null, parse: await workflowViewOfText(text, definitions) };
    },
  };
}
