import { Buffer } from 'node:buffer';
import { isDeepStrictEqual } from 'node:util';
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import type { SerializedIncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateCel, type CelEvaluation, type CelProtoJson } from './engine.ts';

// CEL's conformance data (cel-spec, as @bufbuild/cel-spec ships it), run through the engine in the environment of a
// CRD's x-kubernetes-validations rule: what kube-apiserver v1.36 computes for each case must be what the spec says,
// except where Kubernetes' environment differs from the spec's full language, and each such difference is listed
// below with its reason. Values are compared exactly: int, uint and double apart, NaN equal to NaN, bytes by their
// bytes, maps in any order.

/** Why, by reason: the paths (`suite/section/case`) it applies to. */
type Reasons = Readonly<Record<string, readonly string[]>>;

const PROTO_MESSAGES =
  'needs protobuf messages (cel.expr.conformance TestAllTypes, enums, google.protobuf wrappers, Struct, Value, Any): a CRD rule sees its object as JSON values, never as messages';

/** Suites left out whole, and why. */
const EXCLUDED_SUITES: Readonly<Record<string, string>> = {
  dynamic: PROTO_MESSAGES,
  enums: PROTO_MESSAGES,
  proto2: PROTO_MESSAGES,
  proto2_ext: PROTO_MESSAGES,
  proto3: PROTO_MESSAGES,
  wrappers: PROTO_MESSAGES,
  unknowns:
    'partial evaluation with unknown values, which kube-apiserver never does (every variable of a rule is bound); the suite holds no cases',
};

/**
 * Suites of cel-go extensions the Kubernetes environment leaves out (k8s.io/apiserver/pkg/cel/environment, v1.36).
 * Their cases run, and none may compile: that shows the library is absent, as in kube-apiserver.
 */
const ABSENT_LIBRARIES: Readonly<Record<string, string>> = {
  math_ext: 'ext.Math (math.greatest, math.ceil, math.bitAnd, ...)',
  encoders_ext: 'ext.Encoders (base64.encode, base64.decode)',
  bindings_ext: 'ext.Bindings (cel.bind)',
  block_ext: "cel.block (an optimizer's output, not a language feature)",
};

/** Cases left out of suites that run: the engine still differs from the spec on each (a test checks that). */
const EXCLUDED_CASES: Reasons = {
  [PROTO_MESSAGES]: [
    'comparisons/eq_literal/not_eq_dyn_proto2_msg_null',
    'comparisons/eq_literal/not_eq_dyn_proto3_msg_null',
    'comparisons/eq_wrapper/eq_bool_proto2_null',
    'comparisons/eq_wrapper/eq_bool_proto3_null',
    'comparisons/eq_wrapper/eq_bytes_proto2_null',
    'comparisons/eq_wrapper/eq_bytes_proto3_null',
    'comparisons/eq_wrapper/eq_double_proto2_null',
    'comparisons/eq_wrapper/eq_double_proto3_null',
    'comparisons/eq_wrapper/eq_float_proto2_null',
    'comparisons/eq_wrapper/eq_float_proto3_null',
    'comparisons/eq_wrapper/eq_int32_proto2_null',
    'comparisons/eq_wrapper/eq_int32_proto3_null',
    'comparisons/eq_wrapper/eq_int64_proto2_null',
    'comparisons/eq_wrapper/eq_int64_proto3_null',
    'comparisons/eq_wrapper/eq_string_proto2_null',
    'comparisons/eq_wrapper/eq_string_proto3_null',
    'comparisons/eq_wrapper/eq_uint32_proto2_null',
    'comparisons/eq_wrapper/eq_uint32_proto3_null',
    'comparisons/eq_wrapper/eq_uint64_proto2_null',
    'comparisons/eq_wrapper/eq_uint64_proto3_null',
    'comparisons/eq_wrapper/eq_proto2',
    'comparisons/eq_wrapper/eq_proto3',
    'comparisons/eq_wrapper/eq_proto2_missing_fields_neq',
    'comparisons/eq_wrapper/eq_proto3_missing_fields_neq',
    'comparisons/eq_wrapper/eq_proto_nan_equal',
    'comparisons/eq_wrapper/eq_proto_different_types',
    'comparisons/eq_wrapper/eq_proto2_any_unpack_equal',
    'comparisons/eq_wrapper/eq_proto2_any_unpack_not_equal',
    'comparisons/eq_wrapper/eq_proto2_any_unpack_bytewise_fallback_not_equal',
    'comparisons/eq_wrapper/eq_proto2_any_unpack_bytewise_fallback_equal',
    'comparisons/eq_wrapper/eq_proto3_any_unpack_equal',
    'comparisons/eq_wrapper/eq_proto3_any_unpack_not_equal',
    'comparisons/eq_wrapper/eq_proto3_any_unpack_bytewise_fallback_not_equal',
    'comparisons/eq_wrapper/eq_proto3_any_unpack_bytewise_fallback_equal',
    'comparisons/ne_literal/ne_proto2',
    'comparisons/ne_literal/ne_proto3',
    'comparisons/ne_literal/ne_proto2_missing_fields_neq',
    'comparisons/ne_literal/ne_proto3_missing_fields_neq',
    'comparisons/ne_literal/ne_proto_nan_not_equal',
    'comparisons/ne_literal/ne_proto_different_types',
    'comparisons/ne_literal/ne_proto2_any_unpack',
    'comparisons/ne_literal/ne_proto2_any_unpack_bytewise_fallback',
    'comparisons/ne_literal/ne_proto3_any_unpack',
    'comparisons/ne_literal/ne_proto3_any_unpack_bytewise_fallback',
    'optionals/optionals/has_optional_ofNonZeroValue_struct_optional_ofNonZeroValue_map_optindex_field',
    'optionals/optionals/optional_ofNonZeroValue_struct_optional_ofNonZeroValue_map_optindex_field',
    'optionals/optionals/struct_map_optindex_field',
    'optionals/optionals/struct_optional_ofNonZeroValue_map_optindex_field',
    'optionals/optionals/struct_map_optindex_field_nested',
    'optionals/optionals/struct_list_optindex_field',
    'optionals/optionals/empty_struct_optindex_hasValue',
    'optionals/optionals/optional_empty_struct_optindex_hasValue',
    'optionals/optionals/struct_optindex_value',
    'optionals/optionals/optional_struct_optindex_value',
    'optionals/optionals/optional_struct_optindex_index_value',
    'parse/nest/message_literal',
    'parse/repeat/select',
    'parse/repeat/message_literal',
    'parse/whitespace/spaces',
    'parse/whitespace/tabs',
    'parse/whitespace/new_lines',
    'parse/whitespace/new_pages',
    'parse/whitespace/carriage_returns',
    'parse/comments/new_line_terminated',
    'parse/struct_field_names/as',
    'parse/struct_field_names/break',
    'parse/struct_field_names/const',
    'parse/struct_field_names/continue',
    'parse/struct_field_names/else',
    'parse/struct_field_names/for',
    'parse/struct_field_names/function',
    'parse/struct_field_names/if',
    'parse/struct_field_names/import',
    'parse/struct_field_names/let',
    'parse/struct_field_names/loop',
    'parse/struct_field_names/package',
    'parse/struct_field_names/namespace',
    'parse/struct_field_names/return',
    'parse/struct_field_names/var',
    'parse/struct_field_names/void',
    'parse/struct_field_names/while',
    'string_ext/format_errors/object not allowed',
    'string_ext/format_errors/object inside list',
    'string_ext/format_errors/object inside map',
    'type_deductions/complex_initializers/struct',
    'type_deductions/field_access/int_field',
    'type_deductions/field_access/repeated_int_field',
    'type_deductions/field_access/map_bool_int',
    'type_deductions/field_access/enum_field',
    'type_deductions/field_access/repeated_enum_field',
    'type_deductions/field_access/enum_map_field',
    'type_deductions/flexible_type_parameter_assignment/comprehension_type_var_aliasing',
    'type_deductions/flexible_type_parameter_assignment/overload_type_var_aliasing',
    'type_deductions/flexible_type_parameter_assignment/list_parameters_do_not_unify',
    'type_deductions/wrappers/wrapper_promotion',
    'type_deductions/wrappers/wrapper_promotion_2',
    'type_deductions/wrappers/wrapper_dyn_promotion',
    'type_deductions/wrappers/wrapper_dyn_promotion_2',
    'type_deductions/wrappers/wrapper_primitive_assignable',
    'type_deductions/wrappers/wrapper_null_assignable',
    'type_deductions/wrappers/wrapper_ternary_parameter_assignment',
    'type_deductions/wrappers/wrapper_ternary_parameter_assignment_2',
    'type_deductions/legacy_nullable_types/null_assignable_to_message_parameter_candidate',
    'type_deductions/legacy_nullable_types/null_assignable_to_duration_parameter_candidate',
    'type_deductions/legacy_nullable_types/null_assignable_to_timestamp_parameter_candidate',
  ],
  "Kubernetes pins ext.Strings at version 2, whose format() predates the spec's: %e writes 1.052033×10⁰³, infinities as ∞ and NaN padded, and %s quotes strings and writes doubles with six decimals inside lists and maps":
    [
      'string_ext/format/scientific notation formatting clause',
      'string_ext/format/default precision for scientific notation',
      'string_ext/format/NaN support for scientific notation',
      'string_ext/format/positive infinity support for scientific notation',
      'string_ext/format/negative infinity support for scientific notation',
      'string_ext/format/positive infinity support for fixed-point',
      'string_ext/format/negative infinity support for fixed-point',
      'string_ext/format/list support for string',
      'string_ext/format/map support for string',
      'string_ext/format/map support (all key types)',
      'string_ext/format/dyntype support for scientific notation',
      'string_ext/format/dyntype NaN/infinity support',
      'string_ext/format/dyntype support for lists',
      'string_ext/format/dyntype support for maps',
      'string_ext/format/scientific notation formatting clause in a string variable',
    ],
  "cel-go v0.26 (kube-apiserver v1.36's) answers -1 for an offset past the end of the string; the spec expects an error":
    ['string_ext/value_errors/indexof_out_of_range', 'string_ext/value_errors/lastindexof_out_of_range'],
  'cel-go v0.26 keeps the last of repeated keys in a map literal; the spec expects an error': [
    'fields/qualified_identifier_resolution/map_value_repeat_key',
  ],
  'cel-go v0.26 answers optional.none() when an optional chain selects a field of a value that has none (null, an int); the spec expects an error':
    ['optionals/optionals/map_null_entry_no_such_key', 'optionals/optionals/map_present_key_invalid_field'],
  "cel-go v0.26's duration getMilliseconds() answers the whole duration in milliseconds (123321 for 123.321456789s); the spec expects the milliseconds of its second (321)":
    ['timestamps/duration_converters/get_milliseconds'],
};

/**
 * Cases kube-apiserver refuses when it compiles the rule (so it refuses the CRD), where the spec evaluates them: these
 * run, and must not compile. Kubernetes type-checks every rule and sets options the spec's full language does not.
 */
const REFUSED_AT_COMPILE: Reasons = {
  'written to be evaluated without type-checking (disableCheck); kube-apiserver type-checks every rule, and the checker refuses this one':
    [
      'basic/variables/self_eval_unbound_lookup',
      'basic/variables/unbound_is_runtime_error',
      'basic/functions/unbound',
      'basic/functions/unbound_is_runtime_error',
      'comparisons/eq_literal/not_eq_list_length',
      'comparisons/eq_literal/eq_mixed_types',
      'comparisons/eq_literal/eq_list_elem_mixed_types',
      'comparisons/ne_literal/ne_mixed_types',
      'comparisons/lt_literal/lt_list_unsupported',
      'comparisons/lt_literal/lt_map_unsupported',
      'comparisons/lt_literal/lt_mixed_types_error',
      'comparisons/gt_literal/gt_list_unsupported',
      'comparisons/gt_literal/gt_map_unsupported',
      'comparisons/gt_literal/gt_mixed_types_error',
      'comparisons/lte_literal/lte_list_unsupported',
      'comparisons/lte_literal/lte_map_unsupported',
      'comparisons/lte_literal/lte_mixed_types_error',
      'comparisons/gte_literal/gte_list_unsupported',
      'comparisons/gte_literal/gte_map_unsupported',
      'comparisons/gte_literal/gte_mixed_types_error',
      'comparisons/bound/null_lt_right_no_such_overload',
      'conversions/type/dyn_no_denotation',
      'fields/qualified_identifier_resolution/list_field_select_unsupported',
      'fields/qualified_identifier_resolution/int64_field_select_unsupported',
      'fields/qualified_identifier_resolution/map_key_float',
      'fp_math/fp_math/mod_not_support',
      'integer_math/int64_math/unary_minus_no_overload',
      'integer_math/int64_math/unary_minus_not_bool',
      'integer_math/uint64_math/negative_no_overload',
      'logic/conditional/mixed_type',
      'logic/conditional/bad_type',
      'logic/AND/short_circuit_type_left',
      'logic/AND/short_circuit_type_right',
      'logic/AND/no_overload',
      'logic/OR/short_circuit_type_left',
      'logic/OR/short_circuit_type_right',
      'logic/OR/no_overload',
      'logic/NOT/no_overload',
      'parse/receiver_function_names/as',
      'parse/receiver_function_names/break',
      'parse/receiver_function_names/const',
      'parse/receiver_function_names/continue',
      'parse/receiver_function_names/else',
      'parse/receiver_function_names/for',
      'parse/receiver_function_names/function',
      'parse/receiver_function_names/if',
      'parse/receiver_function_names/import',
      'parse/receiver_function_names/let',
      'parse/receiver_function_names/loop',
      'parse/receiver_function_names/package',
      'parse/receiver_function_names/namespace',
      'parse/receiver_function_names/return',
      'parse/receiver_function_names/var',
      'parse/receiver_function_names/void',
      'parse/receiver_function_names/while',
      'plumbing/check_inputs/skip_check',
      'string_ext/type_errors/charat_invalid_type',
      'string_ext/type_errors/charat_invalid_argument',
      'string_ext/type_errors/indexof_unary_invalid_type',
      'string_ext/type_errors/indexof_unary_invalid_argument',
      'string_ext/type_errors/indexof_binary_invalid_argument',
      'string_ext/type_errors/indexof_binary_invalid_argument_2',
      'string_ext/type_errors/indexof_binary_both_invalid_arguments',
      'string_ext/type_errors/indexof_ternary_invalid_arguments',
      'string_ext/type_errors/split_invalid_type',
      'string_ext/type_errors/replace_invalid_type',
      'string_ext/type_errors/replace_binary_invalid_argument',
      'string_ext/type_errors/replace_binary_invalid_argument_2',
      'string_ext/type_errors/replace_ternary_invalid_argument',
      'string_ext/type_errors/replace_ternary_invalid_argument_2',
      'string_ext/type_errors/replace_ternary_invalid_argument_3',
      'string_ext/type_errors/replace_ternary_invalid_argument_4',
      'string_ext/type_errors/replace_quaternary_invalid_argument',
      'string_ext/type_errors/split_invalid_type_empty_arg',
      'string_ext/type_errors/split_invalid_argument',
      'string_ext/type_errors/split_binary_invalid_type',
      'string_ext/type_errors/split_binary_invalid_argument',
      'string_ext/type_errors/split_binary_invalid_argument_2',
      'string_ext/type_errors/split_ternary_invalid_argument',
      'string_ext/type_errors/substring_ternary_invalid_argument',
      'string_ext/type_errors/substring_binary_invalid_type',
      'string_ext/type_errors/substring_binary_invalid_argument',
      'string_ext/type_errors/substring_binary_invalid_argument_2',
    ],
  'a list or map literal mixing element types: Kubernetes sets cel.HomogeneousAggregateLiterals, so the checker refuses it':
    [
      'comparisons/eq_literal/not_eq_list_null',
      'comparisons/eq_literal/eq_list_mixed_type_numbers',
      'comparisons/eq_literal/not_eq_list_mixed_type_numbers',
      'comparisons/eq_literal/not_eq_list_false_vs_types',
      'comparisons/eq_literal/not_eq_map_null',
      'comparisons/eq_literal/eq_map_mixed_type_numbers',
      'comparisons/eq_literal/not_eq_map_false_vs_types',
      'comparisons/eq_literal/eq_map_value_mixed_types',
      'comparisons/eq_literal/not_eq_list_elem_null',
      'comparisons/eq_literal/not_eq_map_value_null',
      'comparisons/in_list_literal/elem_in_mixed_type_list',
      'comparisons/in_list_literal/elem_in_mixed_type_list_cross_type',
      'comparisons/in_map_literal/key_in_mixed_key_type_map',
      'comparisons/in_map_literal/key_in_mixed_key_type_map_cross_type',
      'conversions/dyn/dyn_heterogeneous_list',
      'fields/map_fields/map_key_int64',
      'fields/map_fields/map_key_uint64',
      'fields/map_fields/map_key_mixed_type',
      'fields/map_fields/map_key_mixed_numbers_double_key',
      'fields/map_fields/map_key_mixed_numbers_lossy_double_key',
      'fields/map_fields/map_key_mixed_numbers_uint_key',
      'fields/map_fields/map_key_mixed_numbers_int_key',
      'fields/map_fields/map_value_mix_type',
      'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous',
      'fields/in/mixed_numbers_and_keys_present',
      'fields/in/mixed_numbers_and_keys_absent',
      'macros/exists/list_elem_type_shortcircuit',
      'macros/exists/list_elem_type_exhaustive',
      'macros/exists/map_key_type_shortcircuit',
      'macros/exists/map_key_type_exhaustive',
      'macros/all/list_elem_type_shortcircuit',
      'macros/all/list_elem_type_exhaustive',
      'macros2/exists/list_elem_type_shortcircuit',
      'macros2/exists/list_elem_type_exhaustive',
      'macros2/exists/map_key_type_shortcircuit',
      'macros2/exists/map_key_type_exhaustive',
      'macros2/all/list_elem_type_shortcircuit',
      'macros2/all/list_elem_type_exhaustive',
      'macros2/all/list_elem_type_error_exhaustive',
      'optionals/optionals/optional_chaining_13',
      'optionals/optionals/map_key_mixed_type_optindex_value',
      'optionals/optionals/map_key_mixed_numbers_double_key_optindex_value',
      'optionals/optionals/map_key_mixed_numbers_uint_key_optindex_value',
      'optionals/optionals/map_key_mixed_numbers_int_key_optindex_value',
      'type_deductions/flexible_type_parameter_assignment/optional_dyn_promotion',
      'type_deductions/flexible_type_parameter_assignment/optional_dyn_promotion_2',
      'type_deductions/type_parameters/multiple_parameters_generality',
      'type_deductions/legacy_nullable_types/null_assignable_to_abstract_parameter_candidate',
    ],
  'a constant expression that errs: Kubernetes builds programs with cel.OptOptimize, which folds constants, so the error comes when the program is built ("program instantiation failed")':
    [
      'conversions/int/uint_range',
      'conversions/int/double_int_max_range',
      'conversions/int/double_int_min_range',
      'conversions/int/double_range',
      'conversions/string/bytes_invalid',
      'conversions/uint/int_neg',
      'conversions/uint/double_uint_max_range',
      'conversions/uint/double_range_beyond_uint',
      'conversions/bool/string_true_badcase',
      'conversions/bool/string_false_badcase',
      'fields/map_fields/map_bad_key_type',
      'fields/map_fields/map_bad_key_type_or_false',
      'fields/map_fields/map_bad_key_type_or_true',
      'fields/map_fields/map_bad_key_type_and_false',
      'fields/map_fields/map_bad_key_type_and_true',
      'fields/qualified_identifier_resolution/map_key_null',
    ],
  'a timestamp or duration literal out of range: Kubernetes validates literals when it compiles a rule (cel.ValidateTimestampLiterals, cel.ValidateDurationLiterals)':
    [
      'timestamps/timestamp_range/from_string_under',
      'timestamps/timestamp_range/from_string_over',
      'timestamps/duration_range/from_string_under',
      'timestamps/duration_range/from_string_over',
      'timestamps/duration_range/add_under',
      'timestamps/duration_range/add_over',
      'timestamps/duration_range/sub_under',
      'timestamps/duration_range/sub_over',
    ],
  "backquoted field names (m.`content-type`) need cel-go's EnableIdentEscapeSyntax parser option, which Kubernetes does not set":
    [
      'fields/quoted_map_fields/field_access_slash',
      'fields/quoted_map_fields/field_access_dash',
      'fields/quoted_map_fields/field_access_dot',
      'fields/quoted_map_fields/has_field_slash',
      'fields/quoted_map_fields/has_field_dash',
      'fields/quoted_map_fields/has_field_dot',
    ],
  'format() with a constant format string is checked when the rule compiles (ext.Strings v2): a bad clause, a missing argument, or one of the wrong type (%d given a double, even NaN or ±Infinity, which the spec formats) refuses the rule':
    [
      'string_ext/format/NaN support for decimal',
      'string_ext/format/positive infinity support for decimal',
      'string_ext/format/negative infinity support for decimal',
      'string_ext/format_errors/unrecognized formatting clause',
      'string_ext/format_errors/out of bounds arg index',
      'string_ext/format_errors/string substitution is not allowed with binary clause',
      'string_ext/format_errors/duration substitution not allowed with decimal clause',
      'string_ext/format_errors/string substitution not allowed with octal clause',
      'string_ext/format_errors/double substitution not allowed with hex clause',
      'string_ext/format_errors/uppercase not allowed for scientific clause',
      'string_ext/format_errors/null not allowed for %d',
      'string_ext/format_errors/null not allowed for %e',
      'string_ext/format_errors/null not allowed for %f',
      'string_ext/format_errors/null not allowed for %x',
      'string_ext/format_errors/null not allowed for %X',
      'string_ext/format_errors/null not allowed for %b',
      'string_ext/format_errors/null not allowed for %o',
    ],
};

const reasonByPath = (reasons: Reasons) =>
  new Map(Object.entries(reasons).flatMap(([reason, paths]) => paths.map((path) => [path, reason] as const)));
const EXCLUDED_CASE_REASON = reasonByPath(EXCLUDED_CASES);
const REFUSED_REASON = reasonByPath(REFUSED_AT_COMPILE);

const SUITES = conformance.suites!.map((suite) => suite.name);
const RUN_SUITES = SUITES.filter((name) => !(name in EXCLUDED_SUITES) && !(name in ABSENT_LIBRARIES));

interface Case {
  /** `suite/section/name` */
  path: string;
  suite: string;
  original: Original;
}

interface Original {
  name?: string;
  expr: string;
  container?: string;
  disableCheck?: boolean;
  checkOnly?: boolean;
  typeEnv?: CelProtoJson[];
  bindings?: Record<string, { value?: CelProtoJson }>;
  value?: CelProtoJson;
  evalError?: unknown;
  typedResult?: { result?: CelProtoJson; deducedType?: CelProtoJson };
}

function casesOf(suite: SerializedIncrementalTestSuite, path: string[] = []): Case[] {
  const here = [...path, suite.name];
  const own = (suite.tests ?? []).map((test) => {
    const original = test.original as unknown as Original;
    return { path: [...here.slice(1), original.name ?? original.expr].join('/'), suite: here[1]!, original };
  });
  return [...own, ...(suite.suites ?? []).flatMap((child) => casesOf(child, here))];
}

const ALL_CASES = casesOf(conformance);

/** Why the engine's answer is not what the spec expects of the case; undefined when it is. */
function mismatch(test: Case, answer: CelEvaluation): string | undefined {
  const { original } = test;
  if (answer.compileError !== undefined) return `does not compile: ${answer.compileError}`;
  if (original.typedResult?.deducedType && !isDeepStrictEqual(answer.type, original.typedResult.deducedType)) {
    return `checked type ${JSON.stringify(answer.type)}, expected ${JSON.stringify(original.typedResult.deducedType)}`;
  }
  if (original.checkOnly) return undefined;
  if (original.evalError !== undefined)
    return answer.evalError !== undefined ? undefined : `expected an evaluation error, got ${JSON.stringify(answer)}`;
  if (answer.evalError !== undefined) return `evaluation failed: ${answer.evalError}`;
  // A case with no expected result expects true.
  const expected = original.typedResult ? original.typedResult.result : (original.value ?? { boolValue: true });
  if (expected === undefined) return undefined;
  return valuesEqual(expected, answer.value)
    ? undefined
    : `expected ${JSON.stringify(expected)}, got ${JSON.stringify(answer.value)}`;
}

/** Equality of two cel.expr.Value in protobuf JSON, by kind and value. */
function valuesEqual(expected: CelProtoJson | undefined, actual: CelProtoJson | undefined): boolean {
  if (expected === undefined || actual === undefined) return expected === actual;
  const [kind, ...more] = Object.keys(expected);
  if (kind === undefined || more.length > 0 || !isDeepStrictEqual(Object.keys(actual), [kind])) return false;
  const want = expected[kind];
  const got = actual[kind];
  switch (kind) {
    case 'int64Value':
    case 'uint64Value':
      return BigInt(want as string | number) === BigInt(got as string | number);
    case 'doubleValue': {
      // protobuf JSON writes NaN and the infinities as strings
      const [a, b] = [Number(want), Number(got)];
      return (Number.isNaN(a) && Number.isNaN(b)) || a === b;
    }
    case 'bytesValue':
      return Buffer.from(want as string, 'base64').equals(Buffer.from(got as string, 'base64'));
    case 'nullValue':
      return true;
    case 'listValue': {
      const [as, bs] = [listOf(want), listOf(got)];
      return as.length === bs.length && as.every((a, i) => valuesEqual(a, bs[i]));
    }
    case 'mapValue': {
      const unmatched = [...entriesOf(got)];
      for (const a of entriesOf(want)) {
        const at = unmatched.findIndex((b) => valuesEqual(a.key, b.key) && valuesEqual(a.value, b.value));
        if (at < 0) return false;
        unmatched.splice(at, 1);
      }
      return unmatched.length === 0;
    }
    default:
      // bool, string, type, and objects (a timestamp or duration, as google.protobuf.Any in JSON)
      return isDeepStrictEqual(want, got);
  }
}

const listOf = (list: unknown) => (list as { values?: CelProtoJson[] }).values ?? [];
const entriesOf = (map: unknown) =>
  (map as { entries?: Array<{ key: CelProtoJson; value: CelProtoJson }> }).entries ?? [];

function evaluate(test: Case): CelEvaluation {
  const { original } = test;
  return evaluateCel({
    expr: original.expr,
    ...(original.container ? { container: original.container } : {}),
    ...(original.typeEnv ? { typeEnv: original.typeEnv } : {}),
    ...(original.bindings
      ? {
          bindings: Object.fromEntries(
            Object.entries(original.bindings).map(([name, bound]) => [name, bound.value ?? {}]),
          ),
        }
      : {}),
    ...(original.checkOnly ? { checkOnly: true } : {}),
  });
}

type Outcome =
  | { kind: 'passed' | 'refused at compile' | 'absent library' | 'excluded suite'; test: Case; reason?: string }
  | { kind: 'failed'; test: Case; failure: string }
  | { kind: 'excluded case'; test: Case; reason: string; failure?: string };

let outcomes: Outcome[] | undefined;

/** Every case, each run once (but those of the suites left out whole), each decided by the lists above. */
function allOutcomes(): Outcome[] {
  outcomes ??= ALL_CASES.map((test): Outcome => {
    if (test.suite in EXCLUDED_SUITES) return { kind: 'excluded suite', test, reason: EXCLUDED_SUITES[test.suite]! };
    let answer: CelEvaluation;
    try {
      answer = evaluate(test);
    } catch (error) {
      return { kind: 'failed', test, failure: `the engine failed: ${(error as Error).message}` };
    }
    const refusedFor = REFUSED_REASON.get(test.path) ?? ABSENT_LIBRARIES[test.suite];
    if (refusedFor) {
      if (answer.compileError === undefined)
        return {
          kind: 'failed',
          test,
          failure: `compiled, where kube-apiserver refuses it (${refusedFor}): ${JSON.stringify(answer)}`,
        };
      return {
        kind: test.suite in ABSENT_LIBRARIES ? 'absent library' : 'refused at compile',
        test,
        reason: refusedFor,
      };
    }
    const failure = mismatch(test, answer);
    const excludedFor = EXCLUDED_CASE_REASON.get(test.path);
    if (excludedFor) return { kind: 'excluded case', test, reason: excludedFor, ...(failure ? { failure } : {}) };
    return failure ? { kind: 'failed', test, failure } : { kind: 'passed', test };
  });
  return outcomes;
}

const count = (kind: Outcome['kind']) => allOutcomes().filter((o) => o.kind === kind).length;

describe("CEL's conformance tests in a CRD rule's environment", () => {
  // About 1,800 evaluations, a few milliseconds each.
  beforeAll(() => void allOutcomes(), 120_000);

  it('decides for every suite of the data whether it runs, and lists only cases it holds', () => {
    for (const name of [...Object.keys(EXCLUDED_SUITES), ...Object.keys(ABSENT_LIBRARIES)])
      expect(SUITES, `listed suite ${name}`).toContain(name);
    const known = new Set(ALL_CASES.map((test) => test.path));
    const unknown = [...EXCLUDED_CASE_REASON.keys(), ...REFUSED_REASON.keys()].filter((path) => !known.has(path));
    expect(unknown).toEqual([]);
    const listed = [...Object.values(EXCLUDED_CASES), ...Object.values(REFUSED_AT_COMPILE)].flat();
    expect(
      listed.filter((path, i) => listed.indexOf(path) !== i),
      'listed twice',
    ).toEqual([]);
  });

  it.each(RUN_SUITES)('%s: every case is as the spec says, or as kube-apiserver refuses it', (suite) => {
    const failures = allOutcomes()
      .filter((o) => o.test.suite === suite && o.kind === 'failed')
      .flatMap((o) => (o.kind === 'failed' ? [`${o.test.path}: ${o.test.original.expr} → ${o.failure}`] : []));
    expect(failures).toEqual([]);
  });

  it.each(Object.keys(ABSENT_LIBRARIES))(
    '%s: no case compiles, the library being absent from the Kubernetes environment',
    (suite) => {
      const compiled = allOutcomes().filter((o) => o.test.suite === suite && o.kind === 'failed');
      expect(compiled.map((o) => o.test.path)).toEqual([]);
    },
  );

  it('leaves out only cases on which the engine still differs from the spec', () => {
    const passing = allOutcomes().filter((o) => o.kind === 'excluded case' && o.failure === undefined);
    expect(passing.map((o) => o.test.path)).toEqual([]);
  });

  it('runs the bulk of the data, each case counted once', () => {
    const counts = Object.fromEntries(
      (['passed', 'refused at compile', 'absent library', 'excluded case', 'excluded suite', 'failed'] as const).map(
        (kind) => [kind, count(kind)],
      ),
    );
    // Exact, for the pinned @bufbuild/cel-spec: a new release or a change to the engine shows here.
    expect(counts).toEqual({
      passed: 1247,
      'refused at compile': 178,
      'absent library': 245,
      'excluded case': 126,
      'excluded suite': 548,
      failed: 0,
    });
    expect(Object.values(counts).reduce((a, b) => a + b)).toBe(ALL_CASES.length);
  });
});
