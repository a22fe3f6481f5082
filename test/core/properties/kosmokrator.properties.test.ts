import { describePresetProperties } from './harness.ts';

describePresetProperties('kosmokrator');
