// Shared types of the ui components.
import type { Component } from 'svelte';
import type { LucideProps } from '@lucide/svelte';

/** A Lucide icon component (imported one by one: `import Play from '@lucide/svelte/icons/play'`). */
export type IconComponent = Component<LucideProps>;
export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger';
