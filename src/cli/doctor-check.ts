/** One of doctor's findings: what it checked, how it came out, and what to do about it. */
export type CheckStatus = 'ok' | 'FAIL' | 'warn';

export interface DoctorCheck {
  /** What was checked, as doctor's table names it. */
  name: string;
  status: CheckStatus;
  /** What was found, or what is wrong and how to fix it. */
  detail: string;
}
