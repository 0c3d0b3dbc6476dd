// The admin API as the inspector reads it: the types generated from the spec (@org/events-types), so a change
// of the spec reaches the page at typecheck. Type-only imports: nothing of that package enters the bundle.
import type { AccountReportTimelineRow, RequestDetail as Detail, RequestLogItem } from '@org/events-types';

export type {
  AccountReport,
  Fault,
  FaultKind,
  FaultSpec,
  MatchQuality,
  RequestSummary,
  StoredEvent,
} from '@org/events-types';

export type RequestDetail = Detail;
export type RequestItem = RequestLogItem;
export type TimelineBucket = AccountReportTimelineRow;
