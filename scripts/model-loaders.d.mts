// Types for model-loaders.mjs (imported by the model picker's spec).
import type { JsonObject } from '@shared/json';

export function loaderDefinition(name: string, displayName: string, required: JsonObject, outputs: string[]): JsonObject;
