// The built-in demo service: public API.
export { DemoService } from './service';
export type { AccountState, DemoFaults, DemoFlavour, DemoServiceOptions, DemoStats } from './types';
