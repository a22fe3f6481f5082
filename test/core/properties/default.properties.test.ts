import { describePresetProperties } from './harness.ts';

describePresetProperties('default');
