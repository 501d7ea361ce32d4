/**
 * The spec's proofread annotation. Offsets are JavaScript string indices (UTF-16 code units)
 * into the content, `range` is `[start, end)` with `0 <= start <= end <= content.length`.
 */
export const ANNOTATION_TYPES = ["grammar", "tone", "suggestion"] as const;
export type AnnotationType = typeof ANNOTATION_TYPES[number];

export interface Annotation {
  range: [number, number];
  type: AnnotationType;
  message: string;
  suggestion: string;
}
