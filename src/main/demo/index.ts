// The built-in demo service: public API.
export { DemoService } from './service';
export type { DemoFlavour, DemoServiceOptions } from './types';
