/** One error type with closed codes; the HTTP status comes from one table. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  plan_required: 403,
  read_only_key: 403,
  personal_token_not_accepted: 403,
  user_token_required: 403,
  organization_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  message: string;
}

export interface ApiErrorOptions {
  data?: unknown;
  errors?: FieldError[];
  /** extra top-level members of the error body (e.g. `allowed` methods) */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly data?: unknown;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.code = code;
    this.data = options.data;
    this.errors = options.errors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The JSON body every transport answers: `{ error, message, ... }`. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code, message: this.message, ...this.extra };
    if (this.errors) body.errors = this.errors;
    if (this.data !== undefined) body.data = this.data;
    return body;
  }
}

export function validationFailed(errors: FieldError[]): ApiError {
  const fields = [...new Set(errors.map((e) => e.field))];
  return new ApiError('validation_failed', `The request was refused; fix these fields: ${fields.join(', ')}.`, { errors });
}

export function notFound(what: string): ApiError {
  return new ApiError('not_found', `No ${what} with that id exists in this organization.`);
}
