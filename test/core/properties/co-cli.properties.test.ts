import { describePresetProperties } from './harness.ts';

describePresetProperties('co-cli');
