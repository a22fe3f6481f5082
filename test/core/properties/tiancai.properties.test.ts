import { describePresetProperties } from './harness.ts';

describePresetProperties('tiancai');
