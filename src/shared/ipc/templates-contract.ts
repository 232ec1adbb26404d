// The template gallery's calls ("New from template"): the active server's templates (the
// templates package's gallery and custom node packs' example workflows), one thumbnail at a time
// as a data: URL the page's CSP allows (img-src data:), and opening one into Run, which answers as
// workflow.open does (a UI-format template is converted with the server's node definitions).
import { z } from 'zod';

/** A name the server listed: a template, or a node pack (the core gallery's source is "default"). */
const templateName = z.string().min(1).max(200);

export const templateViewSchema = z.object({
  source: templateName,
  name: templateName,
  title: z.string(),
  description: z.string(),
  /** The category it is listed under (a node pack's name for its examples). */
  category: z.string(),
  /** The group above the category, when the server names one. */
  group: z.string().nullable(),
  /** image, video, audio, 3d ... as the server says. */
  mediaType: z.string(),
  tags: z.array(z.string()),
  /** Ask templates.thumbnail with this; null: the template has no picture. */
  thumbnail: z.string().max(1200).nullable(),
});
export type TemplateView = z.infer<typeof templateViewSchema>;

export const templateListSchema = z.object({
  /** False: the server offers no templates (no templates package, no node pack examples). */
  available: z.boolean(),
  templates: z.array(templateViewSchema),
  /** What could not be read while the rest could (shown above the gallery). */
  note: z.string().nullable(),
});

export const templateThumbnailInput = z.object({ path: z.string().min(1).max(1200) }).strict();
export const templateThumbnailSchema = z.object({
  /** A data: URL of a PNG, JPEG, WebP or GIF (checked by its bytes); null when the server has none. */
  dataUrl: z
    .string()
    .regex(/^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]*={0,2}$/)
    .nullable(),
});

export const templateOpenInput = z.object({ source: templateName, name: templateName }).strict();
