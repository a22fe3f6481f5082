export * from './calibrated-counter.ts';
export * from './features.ts';
export * from './packed.ts';
export * from './presets.ts';
export * from './session-calibrator.ts';
export { CALIBRATED_WEIGHTS } from './weights.ts';
