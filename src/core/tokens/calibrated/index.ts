// Named, not `export *`: `calibratedCounter` (the default pipeline preset's o200k-only factory) stays internal.
export {
  type CalibratedCounter,
  type CalibratedCounterOptions,
  createCalibratedCounter,
  estimateCalibratedRaw,
} from './calibrated-counter.ts';
export * from './features.ts';
export * from './packed.ts';
export * from './presets.ts';
export * from './session-calibrator.ts';
export { CALIBRATED_WEIGHTS } from './weights.ts';
