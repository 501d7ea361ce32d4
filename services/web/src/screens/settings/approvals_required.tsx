/**
 * How many distinct reviewers must approve a post (1 to 5), beside "Approval required before
 * publishing"; it only matters while approval is required, so it is disabled otherwise.
 */
export const MAX_APPROVALS = 5;

export function ApprovalsRequired(
  { value, disabled, error, onChange }: {
    value: number;
    disabled: boolean;
    error?: string;
    onChange: (value: number) => void;
  },
) {
  const id = "settings-approvals-required";
  return (
    <div class="settings-approvals">
      <label for={id}>Approvals needed</label>
      <select
        id={id}
        value={String(value)}
        disabled={disabled}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
        aria-invalid={error ? true : undefined}
        onChange={(e) => onChange(Number(e.currentTarget.value))}
      >
        {Array.from({ length: MAX_APPROVALS }, (_, i) => i + 1).map((n) => (
          <option key={n} value={String(n)}>{n}</option>
        ))}
      </select>
      <p class="field-hint" id={`${id}-hint`}>
        {disabled
          ? "Turn approval on to ask for more than one approval."
          : value === 1
          ? "One approval is enough; a reviewer with a review link counts as one too."
          : `${value} different reviewers must approve the same text; a reviewer with a review link counts as one.`}
      </p>
      {error && <p class="field-error" id={`${id}-error`} role="alert">{error}</p>}
    </div>
  );
}
