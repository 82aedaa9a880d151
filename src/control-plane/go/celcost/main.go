// celcost: the static CEL cost estimate of a ValidatingAdmissionPolicy or a MutatingAdmissionPolicy against the CRD
// it matches, made with kube-apiserver's own CEL libraries at the version crdgate's test control plane runs.
//
// kube-apiserver compiles a policy's expressions with `object` and `oldObject` as dyn and never estimates their
// cost; only kube-controller-manager type-checks them against the schema, and only into status warnings. So
// nothing tells a policy author, before a large object meets the policy, that an expression can run out of
// budget. This program does what the API server does for CRD validation rules, for a policy's expressions:
//
//   - the API server's creation-time compile (dyn types, the NewExpressions environment, return types);
//   - validating.TypeChecker.Check, verbatim: the warnings kube-controller-manager would write to
//     status.typeChecking, from the OpenAPI v3 document the API server publishes for the CRD version;
//   - a typed compile of every variable, validation and messageExpression in the same typed environment
//     (StoredExpressions, as the type checker uses), reporting any issue;
//   - cel-go's cost estimator with the API server's library.CostEstimator, sized by the schema's
//     maxItems/maxLength/maxProperties (common.SchemaDeclType), as CRD validation rules are estimated, against
//     PerCallLimit and RuntimeCELCostBudget.
//
// How variables are counted. At runtime a variable is a separate program, evaluated lazily at most once per
// evaluation pass, with its own PerCallLimit; its cost is charged to the binding's budget by the first
// expression that touches it (plugin/cel/composition.go). The estimate follows that:
//   - "cost" of a variable or expression is what its own program can cost, `variables.x` counting as a select;
//     it is compared with PerCallLimit;
//   - a pass (all validations, then all messageExpressions, which the API server evaluates with what the
//     validations left of the budget) costs the sum of its expressions plus each variable its expressions
//     reach, directly or through other variables, once; the two passes together are compared with
//     RuntimeCELCostBudget.
//
// To give a variable's value a size (a filtered list, a string) where another expression uses it, each
// expression is estimated with the variables it reaches bound by cel.bind, whose cost cel-go counts once and
// whose size it carries to the uses; the variables' own costs are then subtracted again.
//
// Where the estimate knows more than the API server's estimator would for a CRD validation rule, and why each is
// sound (every bound below holds for every object and oldObject a policy can see):
//   - ObjectMeta limits. The published ObjectMeta schema bounds nothing, so a name or an annotation would count as
//     long as a request (3 MiB). The API server validates ObjectMeta before any validating admission, so names
//     are DNS subdomains, namespaces DNS labels, keys qualified names, label values 63 characters and all
//     annotations 256 KiB together (boundObjectMeta).
//   - Sizes through what cel-go's coster has no path for: optional selection (`a.?b`, `m[?k]`), optional.of,
//     .value() and .orValue(literal), comprehension and cel.bind variables, the lists filter() and map() build,
//     list literals and conditionals, and string() of a scalar; each value is bounded by the declared type it is
//     traced to (schemaSizeEstimator). Without this, every string reached through `?.` counts as unbounded.
//   - Lists without a path (built ones, literals) get one that names their traced bound, so the API server's own
//     estimate of join() and the like sees their elements' sizes (boundedCostEstimator).
// The costs themselves are always the API server's: cel-go's coster and library.CostEstimator, unchanged.
//
// A MutatingAdmissionPolicy is estimated the same way, its mutations (JSONPatch or ApplyConfiguration expressions)
// compiled with the patch types (JSONPatch, Object) the API server declares for them. Its budget differs: the
// mutating dispatcher hands each mutation the whole RuntimeCELCostBudget (dispatcher.go, patcher.Patch), so each
// mutation with the variables it reaches is compared with it, not their sum. And a mutating policy runs before the
// API server validates the object (schema and ObjectMeta alike): the estimate, sized by the schema and ObjectMeta's
// limits as for a validating policy, holds for every object the API server stores; a request beyond those limits
// may run a mutation out of budget, which refuses it (failurePolicy Fail), as validation would have.

// Usage: celcost [FILE...]   (stdin without files; YAML or JSON documents, `---`-separated)
// Every ValidatingAdmissionPolicy and MutatingAdmissionPolicy among the documents is checked against the
// CustomResourceDefinition among them whose group, plural and version its resourceRules name. Prints one JSON report on stdout. Exit status:
// 0 when every policy passes, 1 when one does not (a type-check issue, a compile error, a cost over a limit, or
// something this estimator does not cover), 2 when the input cannot be read.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/parser"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/version"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

const (
	exitFailed   = 1
	exitBadInput = 2
	// Names the bound variables get in the cel.bind form; a prefix no VAP variable name carries in practice.
	boundVariablePrefix = "crdgateCelcostVar_"
)

type costRange struct {
	Min uint64 `json:"min"`
	Max uint64 `json:"max"`
	// Unbounded: the estimator found no bound (cel-go's maximum, math.MaxUint64, which JSON readers round).
	Unbounded bool `json:"unbounded,omitempty"`
}

func newCostRange(min, max uint64) costRange {
	return costRange{Min: min, Max: max, Unbounded: max == math.MaxUint64}
}

func (c costRange) plus(o costRange) costRange {
	return newCostRange(saturatingAdd(c.Min, o.Min), saturatingAdd(c.Max, o.Max))
}

type expressionReport struct {
	Field      string `json:"field"`
	Role       string `json:"role"` // variable, validation, messageExpression or mutation
	Name       string `json:"name,omitempty"`
	OutputType string `json:"outputType,omitempty"`
	// Cost: what this expression's own program can cost (the figure PerCallLimit applies to).
	Cost *costRange `json:"cost,omitempty"`
	// Variables: every variable this expression reaches, directly or through other variables.
	Variables []string `json:"variables"`
	// CostWithVariables: Cost plus the costs of Variables, what it is charged when it touches them first.
	CostWithVariables *costRange `json:"costWithVariables,omitempty"`
	Problems          []string   `json:"problems"`
}

type gvkReport struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
}

type largestReport struct {
	Field string `json:"field"`
	Max   uint64 `json:"max"`
}

type policyReport struct {
	Kind             string               `json:"kind"`
	Name             string               `json:"name"`
	CheckedAgainst   *gvkReport           `json:"checkedAgainst,omitempty"`
	Expressions      []expressionReport   `json:"expressions"`
	TypeCheckWarning []typeCheckWarning   `json:"typeCheckingWarnings"`
	Passes           map[string]costRange `json:"passes,omitempty"`
	Total            *costRange           `json:"total,omitempty"`
	Largest          *largestReport       `json:"largest,omitempty"`
	Problems         []string             `json:"problems"`
	OK               bool                 `json:"ok"`
}

type typeCheckWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

type report struct {
	Estimator map[string]string `json:"estimator"`
	Limits    map[string]uint64 `json:"limits"`
	Policies  []policyReport    `json:"policies"`
	OK        bool              `json:"ok"`
}

func main() {
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		fmt.Printf("celcost (k8s.io/apiserver %s, cel-go %s)\n", moduleVersion("k8s.io/apiserver"), moduleVersion("github.com/google/cel-go"))
		return
	}
	for _, arg := range args {
		if strings.HasPrefix(arg, "-") && arg != "-" {
			fmt.Fprintf(os.Stderr, "celcost: unknown option %s\nusage: celcost [--version] [FILE...]  (YAML/JSON documents; stdin without files)\n", arg)
			os.Exit(exitBadInput)
		}
	}
	policies, crds, err := readDocuments(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "celcost: %v\n", err)
		os.Exit(exitBadInput)
	}
	if len(policies) == 0 {
		fmt.Fprintln(os.Stderr, "celcost: no ValidatingAdmissionPolicy or MutatingAdmissionPolicy among the documents")
		os.Exit(exitBadInput)
	}

	out := report{
		Estimator: map[string]string{"k8s.io/apiserver": moduleVersion("k8s.io/apiserver"), "github.com/google/cel-go": moduleVersion("github.com/google/cel-go")},
		Limits:    map[string]uint64{"perCallLimit": celconfig.PerCallLimit, "runtimeCELCostBudget": celconfig.RuntimeCELCostBudget},
		OK:        true,
	}
	for _, policy := range policies {
		r := checkPolicy(policy, crds)
		out.OK = out.OK && r.OK
		out.Policies = append(out.Policies, r)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "celcost: %v\n", err)
		os.Exit(exitBadInput)
	}
	if !out.OK {
		os.Exit(exitFailed)
	}
}

func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == path {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}

// ---------------------------------------------------------------------------------------------------------
// Input

func readDocuments(files []string) ([]admissionPolicy, []*apiextensionsv1.CustomResourceDefinition, error) {
	var policies []admissionPolicy
	var crds []*apiextensionsv1.CustomResourceDefinition
	readers := map[string]io.Reader{}
	var order []string
	if len(files) == 0 {
		readers["stdin"], order = os.Stdin, []string{"stdin"}
	}
	for _, file := range files {
		if file == "-" {
			readers["stdin"] = os.Stdin
			order = append(order, "stdin")
			continue
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		readers[file] = f
		order = append(order, file)
	}
	for _, name := range order {
		documents := utilyaml.NewYAMLReader(bufio.NewReader(readers[name]))
		for index := 0; ; index++ {
			document, err := documents.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			if len(bytes.TrimSpace(document)) == 0 {
				continue
			}
			asJSON, err := yaml.YAMLToJSON(document)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, document %d: %w", name, index+1, err)
			}
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := json.Unmarshal(asJSON, &head); err != nil || string(asJSON) == "null" {
				continue
			}
			where := fmt.Sprintf("%s, document %d (%s %s)", name, index+1, head.APIVersion, head.Kind)
			switch {
			case head.APIVersion == "admissionregistration.k8s.io/v1" && head.Kind == "ValidatingAdmissionPolicy":
				policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
				if err := strictUnmarshal(asJSON, policy); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", where, err)
				}
				policies = append(policies, validatingPolicy(policy))
			case head.APIVersion == "admissionregistration.k8s.io/v1" && head.Kind == "MutatingAdmissionPolicy":
				policy := &admissionregistrationv1.MutatingAdmissionPolicy{}
				if err := strictUnmarshal(asJSON, policy); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", where, err)
				}
				policies = append(policies, mutatingPolicy(policy))
			case head.APIVersion == "apiextensions.k8s.io/v1" && head.Kind == "CustomResourceDefinition":
				crd := &apiextensionsv1.CustomResourceDefinition{}
				if err := strictUnmarshal(asJSON, crd); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", where, err)
				}
				crds = append(crds, crd)
			}
		}
	}
	return policies, crds, nil
}

// Unknown fields are errors, as under fieldValidation=Strict: a misspelt field would otherwise drop out unseen.
func strictUnmarshal(data []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	return decoder.Decode(into)
}

// ---------------------------------------------------------------------------------------------------------
// The policy

type namedExpression struct {
	field, role, name, text string
}

// What celcost reads of either kind of policy.
type admissionPolicy struct {
	kind, name       string
	paramKind        *admissionregistrationv1.ParamKind
	matchConstraints *admissionregistrationv1.MatchResources
	matchConditions  int
	auditAnnotations int
	expressions      []namedExpression
	// A mutating policy's expressions are compiled with the patch types (JSONPatch, Object).
	patchTypes bool
	// The validating policy as it is, for kube-controller-manager's type check (it has none for mutating ones).
	validating *admissionregistrationv1.ValidatingAdmissionPolicy
}

func validatingPolicy(policy *admissionregistrationv1.ValidatingAdmissionPolicy) admissionPolicy {
	var expressions []namedExpression
	for i, v := range policy.Spec.Variables {
		expressions = append(expressions, namedExpression{fmt.Sprintf("spec.variables[%d].expression", i), "variable", v.Name, v.Expression})
	}
	for i, v := range policy.Spec.Validations {
		expressions = append(expressions, namedExpression{fmt.Sprintf("spec.validations[%d].expression", i), "validation", "", v.Expression})
	}
	for i, v := range policy.Spec.Validations {
		if v.MessageExpression != "" {
			expressions = append(expressions, namedExpression{fmt.Sprintf("spec.validations[%d].messageExpression", i), "messageExpression", "", v.MessageExpression})
		}
	}
	return admissionPolicy{
		kind: "ValidatingAdmissionPolicy", name: policy.Name, paramKind: policy.Spec.ParamKind, matchConstraints: policy.Spec.MatchConstraints,
		matchConditions: len(policy.Spec.MatchConditions), auditAnnotations: len(policy.Spec.AuditAnnotations), expressions: expressions, validating: policy,
	}
}

func mutatingPolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) admissionPolicy {
	var expressions []namedExpression
	for i, v := range policy.Spec.Variables {
		expressions = append(expressions, namedExpression{fmt.Sprintf("spec.variables[%d].expression", i), "variable", v.Name, v.Expression})
	}
	for i, m := range policy.Spec.Mutations {
		switch {
		case m.JSONPatch != nil:
			expressions = append(expressions, namedExpression{fmt.Sprintf("spec.mutations[%d].jsonPatch.expression", i), "mutation", string(admissionregistrationv1.PatchTypeJSONPatch), m.JSONPatch.Expression})
		case m.ApplyConfiguration != nil:
			expressions = append(expressions, namedExpression{fmt.Sprintf("spec.mutations[%d].applyConfiguration.expression", i), "mutation", string(admissionregistrationv1.PatchTypeApplyConfiguration), m.ApplyConfiguration.Expression})
		}
	}
	return admissionPolicy{
		kind: "MutatingAdmissionPolicy", name: policy.Name, paramKind: policy.Spec.ParamKind, matchConstraints: policy.Spec.MatchConstraints,
		matchConditions: len(policy.Spec.MatchConditions), expressions: expressions, patchTypes: true,
	}
}

func checkPolicy(policy admissionPolicy, crds []*apiextensionsv1.CustomResourceDefinition) (r policyReport) {
	r = policyReport{Kind: policy.kind, Name: policy.name, Expressions: []expressionReport{}, TypeCheckWarning: []typeCheckWarning{}, Problems: []string{}}
	defer func() { r.OK = len(r.Problems) == 0 }()

	if policy.paramKind != nil {
		r.Problems = append(r.Problems, "spec.paramKind: policies with params are not estimated by celcost")
	}
	if policy.matchConditions > 0 {
		r.Problems = append(r.Problems, "spec.matchConditions: not estimated by celcost (they have a budget of their own)")
	}
	if policy.auditAnnotations > 0 {
		r.Problems = append(r.Problems, "spec.auditAnnotations: not estimated by celcost (they have a budget of their own)")
	}

	gvk, crd, resource, err := matchedKind(policy.matchConstraints, crds)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}
	r.CheckedAgainst = &gvkReport{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Resource: resource}
	resourceSchema, err := publishedSchema(crd, gvk)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}

	expressions := policy.expressions
	reports := make([]expressionReport, len(expressions))
	for i, e := range expressions {
		reports[i] = expressionReport{Field: e.field, Role: e.role, Name: e.name, Variables: []string{}, Problems: []string{}}
	}

	creationProblems(expressions, reports)

	// kube-controller-manager's check, verbatim; it checks validating policies only (the typed compile below checks
	// a mutating one's expressions all the same).
	if policy.validating != nil {
		typeChecker := &validating.TypeChecker{
			SchemaResolver: fixedSchemaResolver{gvk: gvk, schema: resourceSchema},
			RestMapper:     restMapperFor(crd, gvk),
		}
		for _, w := range typeChecker.Check(policy.validating) {
			r.TypeCheckWarning = append(r.TypeCheckWarning, typeCheckWarning{FieldRef: w.FieldRef, Warning: strings.TrimSpace(w.Warning)})
			r.Problems = append(r.Problems, fmt.Sprintf("%s: kube-controller-manager's type check warns: %s", w.FieldRef, strings.TrimSpace(w.Warning)))
		}
	}

	objectType := common.SchemaDeclType(&openapi.Schema{Schema: resourceSchema}, true)
	if objectType == nil {
		r.Problems = append(r.Problems, fmt.Sprintf("no CEL type for the schema of %s", gvk))
		return r
	}
	objectType = objectType.MaybeAssignTypeName(fmt.Sprintf("%s%d", gvk.Kind, time.Now().Nanosecond()))
	boundObjectMeta(objectType)
	estimate(expressions, reports, objectType, policy.patchTypes)

	r.Expressions = reports
	for _, e := range reports {
		for _, p := range e.Problems {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %s", e.Field, p))
		}
		if e.Cost != nil && (r.Largest == nil || e.Cost.Max > r.Largest.Max) {
			r.Largest = &largestReport{Field: e.Field, Max: e.Cost.Max}
		}
	}
	if policy.patchTypes {
		if largest, ok := largestMutation(reports); ok {
			r.Total = &largest
			if largest.Max > celconfig.RuntimeCELCostBudget {
				r.Problems = append(r.Problems, fmt.Sprintf("a mutation with the variables it reaches can cost %s, over RuntimeCELCostBudget %d per mutation", describeMax(largest), celconfig.RuntimeCELCostBudget))
			}
		}
	} else if passes, ok := passCosts(reports); ok {
		r.Passes = passes
		total := passes["validations"].plus(passes["messageExpressions"])
		r.Total = &total
		if total.Max > celconfig.RuntimeCELCostBudget {
			r.Problems = append(r.Problems, fmt.Sprintf("the validations and messageExpressions together can cost %s, over RuntimeCELCostBudget %d per binding", describeMax(total), celconfig.RuntimeCELCostBudget))
		}
	}
	return r
}

func matchedKind(constraints *admissionregistrationv1.MatchResources, crds []*apiextensionsv1.CustomResourceDefinition) (schema.GroupVersionKind, *apiextensionsv1.CustomResourceDefinition, string, error) {
	if constraints == nil {
		return schema.GroupVersionKind{}, nil, "", errors.New("spec.matchConstraints: missing, so no schema to check against")
	}
	type match struct {
		gvk      schema.GroupVersionKind
		crd      *apiextensionsv1.CustomResourceDefinition
		resource string
	}
	var matches []match
	var named []string
	for _, rule := range constraints.ResourceRules {
		for _, group := range rule.APIGroups {
			for _, ver := range rule.APIVersions {
				for _, resource := range rule.Resources {
					if strings.ContainsAny(group+ver+resource, "*/") {
						return schema.GroupVersionKind{}, nil, "", fmt.Errorf("spec.matchConstraints: wildcards and subresources (%s/%s %s) are not estimated by celcost", group, ver, resource)
					}
					named = append(named, fmt.Sprintf("%s.%s/%s", resource, group, ver))
					for _, crd := range crds {
						if crd.Spec.Group != group || crd.Spec.Names.Plural != resource {
							continue
						}
						for _, v := range crd.Spec.Versions {
							if v.Name == ver {
								matches = append(matches, match{schema.GroupVersionKind{Group: group, Version: ver, Kind: crd.Spec.Names.Kind}, crd, resource})
							}
						}
					}
				}
			}
		}
	}
	if len(matches) != 1 {
		return schema.GroupVersionKind{}, nil, "", fmt.Errorf("spec.matchConstraints: celcost checks a policy against exactly one CRD version; %s matched %d among the CustomResourceDefinitions given", strings.Join(named, ", "), len(matches))
	}
	return matches[0].gvk, matches[0].crd, matches[0].resource, nil
}

// The schema of the resource as the API server publishes it under /openapi/v3 (the openapiv3 controller's
// options), with its references resolved as kube-controller-manager's ClientDiscoveryResolver resolves them:
// the CRD's schema plus ObjectMeta, apiVersion and kind.
func publishedSchema(crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind) (*spec.Schema, error) {
	document, err := builder.BuildOpenAPIV3(crd, gvk.Version, builder.Options{V2: false, IncludeSelectableFields: true})
	if err != nil {
		return nil, fmt.Errorf("the OpenAPI v3 document of %s: %w", gvk, err)
	}
	if document.Components == nil {
		return nil, fmt.Errorf("the OpenAPI v3 document of %s has no components", gvk)
	}
	schemas := document.Components.Schemas
	names := make([]string, 0, len(schemas))
	for name := range schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var gvks []schema.GroupVersionKind
		if err := schemas[name].Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
			return nil, err
		}
		if !slices.Contains(gvks, gvk) {
			continue
		}
		return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
			s, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			return s, ok
		}, name)
	}
	return nil, fmt.Errorf("the OpenAPI v3 document of %s names no schema for it", gvk)
}

type fixedSchemaResolver struct {
	gvk    schema.GroupVersionKind
	schema *spec.Schema
}

func (f fixedSchemaResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if gvk != f.gvk {
		return nil, fmt.Errorf("%s: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return f.schema, nil
}

func restMapperFor(crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind) meta.RESTMapper {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gvk.GroupVersion()})
	scope := meta.RESTScopeNamespace
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		scope = meta.RESTScopeRoot
	}
	mapper.AddSpecific(gvk, gvk.GroupVersion().WithResource(crd.Spec.Names.Plural), gvk.GroupVersion().WithResource(crd.Spec.Names.Singular), scope)
	return mapper
}

// ObjectMeta as published has no maxLength and no maxProperties, so by the schema alone a name or an annotation
// could be as long as a request (3 MiB), and a regular expression over an annotation would be estimated at
// millions. The API server validates ObjectMeta before any validating admission: an UPDATE's object in
// rest.BeforeUpdate (customResourceValidator.ValidateUpdate), a stored oldObject when it was written. So every
// object and oldObject a policy sees keeps to apimachinery's limits, and the estimate may rely on them: names are
// DNS subdomains, namespaces DNS labels, label and annotation keys qualified names, label values at most 63
// characters, and all annotations together at most 256 KiB.
func boundObjectMeta(objectType *apiservercel.DeclType) {
	metadataField, ok := objectType.Fields["metadata"]
	if !ok || metadataField.Type == nil {
		return
	}
	metadata := copyDeclType(metadataField.Type, metadataField.Type.MaxElements)
	qualifiedName := int64(validation.DNS1123SubdomainMaxLength + 1 + validation.DNS1123LabelMaxLength) // prefix/name
	bound := func(name string, limit func(*apiservercel.DeclType) *apiservercel.DeclType) {
		for _, key := range []string{name, "__" + name + "__"} {
			if field, ok := metadata.Fields[key]; ok && field.Type != nil {
				bounded := *field
				bounded.Type = limit(field.Type)
				metadata.Fields[key] = &bounded
			}
		}
	}
	text := func(n int) func(*apiservercel.DeclType) *apiservercel.DeclType {
		return func(t *apiservercel.DeclType) *apiservercel.DeclType { return copyDeclType(t, int64(n)) }
	}
	stringMap := func(entries, keys, values int64) func(*apiservercel.DeclType) *apiservercel.DeclType {
		return func(t *apiservercel.DeclType) *apiservercel.DeclType {
			if t.KeyType == nil || t.ElemType == nil {
				return t
			}
			bounded := copyDeclType(t, min(entries, t.MaxElements))
			bounded.KeyType = copyDeclType(t.KeyType, keys)
			bounded.ElemType = copyDeclType(t.ElemType, values)
			return bounded
		}
	}
	bound("name", text(validation.DNS1123SubdomainMaxLength))
	bound("generateName", text(validation.DNS1123SubdomainMaxLength))
	bound("namespace", text(validation.DNS1123LabelMaxLength))
	annotationBytes := int64(apivalidation.TotalAnnotationSizeLimitB)
	bound("annotations", stringMap(annotationBytes, qualifiedName, annotationBytes))
	bound("labels", stringMap(math.MaxInt64, qualifiedName, int64(validation.LabelValueMaxLength)))
	bounded := *metadataField
	bounded.Type = metadata
	objectType.Fields["metadata"] = &bounded
}

func copyDeclType(t *apiservercel.DeclType, maxElements int64) *apiservercel.DeclType {
	c := *t
	c.MaxElements = maxElements
	if t.Fields != nil {
		c.Fields = make(map[string]*apiservercel.DeclField, len(t.Fields))
		for k, v := range t.Fields {
			c.Fields[k] = v
		}
	}
	return &c
}

// ---------------------------------------------------------------------------------------------------------
// What the API server checks when the policy is created: the admission compiler with dyn objects, in the
// NewExpressions environment, each expression's return type included (validation.go in k8s.io/kubernetes).

func creationProblems(expressions []namedExpression, reports []expressionReport) {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		for i := range reports {
			reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("the admission compiler: %v", err))
		}
		return
	}
	withAuthorizer := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	for i, e := range expressions {
		var result plugincel.CompilationResult
		switch e.role {
		case "variable":
			result = compiler.CompileAndStoreVariable(&validating.Variable{Name: e.name, Expression: e.text}, withAuthorizer, environment.NewExpressions)
		case "validation":
			result = compiler.CompileCELExpression(&validating.ValidationCondition{Expression: e.text}, withAuthorizer, environment.NewExpressions)
		case "messageExpression":
			result = compiler.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: e.text}, plugincel.OptionalVariableDeclarations{}, environment.NewExpressions)
		case "mutation":
			// As validation.go's validateJSONPatch and validateApplyConfiguration compile them.
			withPatchTypes := plugincel.OptionalVariableDeclarations{HasAuthorizer: true, HasPatchTypes: true}
			var accessor plugincel.ExpressionAccessor = &patch.JSONPatchCondition{Expression: e.text}
			if e.name == string(admissionregistrationv1.PatchTypeApplyConfiguration) {
				accessor = &patch.ApplyConfigurationCondition{Expression: e.text}
			}
			result = compiler.CompileCELExpression(accessor, withPatchTypes, environment.NewExpressions)
		}
		if result.Error != nil {
			reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("the API server refuses it at creation: %s", result.Error.Detail))
		}
	}
}

// ---------------------------------------------------------------------------------------------------------
// Typed compile and cost

// The typed environment of validating.TypeChecker (typechecking.go buildEnvSet), without params; with patchTypes,
// the patch types a mutating policy's expressions are compiled with (compile.go's hasPatchTypes).
func typedEnvSet(objectType *apiservercel.DeclType, patchTypes bool) (*environment.EnvSet, error) {
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()
	envSet, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
			cel.Variable(plugincel.RequestVarName, requestType.CelType()),
			cel.Variable(plugincel.ObjectVarName, objectType.CelType()),
			cel.Variable(plugincel.OldObjectVarName, objectType.CelType()),
			cel.Variable("authorizer", library.AuthorizerType),
		},
		DeclTypes: []*apiservercel.DeclType{namespaceType, requestType, objectType},
	})
	if err != nil || !patchTypes {
		return envSet, err
	}
	return envSet.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			common.ResolverEnvOption(&mutation.DynamicTypeResolver{}),
			environment.UnversionedLib(library.JSONPatch),
		},
	})
}

// Compiles against the composition's typed environment and keeps the AST, as the type checker's compiler does
// (no output type enforced, no program).
type typedCompiler struct {
	composited *plugincel.CompositedCompiler
	lastAST    *cel.Ast
}

func (c *typedCompiler) CompileCELExpression(accessor plugincel.ExpressionAccessor, _ plugincel.OptionalVariableDeclarations, mode environment.Type) plugincel.CompilationResult {
	c.lastAST = nil
	env, err := c.composited.Env(mode)
	if err != nil {
		return plugincel.CompilationResult{Error: &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: err.Error()}, ExpressionAccessor: accessor}
	}
	checked, issues := env.Compile(accessor.GetExpression())
	if issues != nil && issues.Err() != nil {
		return plugincel.CompilationResult{Error: &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: issues.String()}, ExpressionAccessor: accessor}
	}
	c.lastAST = checked
	return plugincel.CompilationResult{OutputType: checked.OutputType(), ExpressionAccessor: accessor}
}

func estimate(expressions []namedExpression, reports []expressionReport, objectType *apiservercel.DeclType, patchTypes bool) {
	fail := func(err error) {
		for i := range reports {
			reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("the typed environment: %v", err))
		}
	}
	envSet, err := typedEnvSet(objectType, patchTypes)
	if err != nil {
		fail(err)
		return
	}
	composited, err := plugincel.NewCompositedCompilerForTypeChecking(envSet)
	if err != nil {
		fail(err)
		return
	}
	compiler := &typedCompiler{composited: composited}
	composited.Compiler = compiler
	options := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}

	typed := make([]bool, len(expressions))
	variableIndex := map[string]int{}
	for i, e := range expressions {
		var result plugincel.CompilationResult
		if e.role == "variable" {
			result = composited.CompileAndStoreVariable(&validating.Variable{Name: e.name, Expression: e.text}, options, environment.StoredExpressions)
			variableIndex[e.name] = i
		} else {
			result = composited.CompileCELExpression(&validating.ValidationCondition{Expression: e.text}, options, environment.StoredExpressions)
		}
		if result.Error != nil {
			reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("does not type-check against the schema: %s", strings.TrimSpace(result.Error.Detail)))
			continue
		}
		typed[i] = true
		reports[i].OutputType = cel.FormatCELType(result.OutputType)
	}

	storedEnv, err := composited.Env(environment.StoredExpressions)
	if err != nil {
		fail(err)
		return
	}
	costEnv, err := storedEnv.Extend(ext.Bindings())
	if err != nil {
		fail(err)
		return
	}
	roots := map[string]*apiservercel.DeclType{
		plugincel.ObjectVarName:    objectType,
		plugincel.OldObjectVarName: objectType,
		plugincel.RequestVarName:   plugincel.BuildRequestType(),
		plugincel.NamespaceVarName: plugincel.BuildNamespaceType(),
	}

	// References to variables, found in the parsed expression (not the text: a string literal may hold anything).
	references := make([][]variableReference, len(expressions))
	for i, e := range expressions {
		refs, err := variableReferences(storedEnv, e.text)
		if err != nil {
			reports[i].Problems = append(reports[i].Problems, err.Error())
			typed[i] = false
			continue
		}
		for _, ref := range refs {
			if _, ok := variableIndex[ref.name]; !ok {
				reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("uses variables.%s, which the policy does not declare", ref.name))
				typed[i] = false
			}
		}
		references[i] = refs
	}
	// Each expression's variables, closed over the variables they use in turn, in declaration order (a variable
	// can only use those declared before it, so this is also the order cel.bind must nest them in).
	closures := make([][]string, len(expressions))
	for i := range expressions {
		reached := map[string]bool{}
		var visit func(int)
		visit = func(j int) {
			for _, ref := range references[j] {
				if k, ok := variableIndex[ref.name]; ok && !reached[ref.name] {
					reached[ref.name] = true
					visit(k)
				}
			}
		}
		visit(i)
		for name := range reached {
			closures[i] = append(closures[i], name)
		}
		sort.Slice(closures[i], func(a, b int) bool { return variableIndex[closures[i][a]] < variableIndex[closures[i][b]] })
		reports[i].Variables = append([]string{}, closures[i]...)
	}

	bindCost, err := estimateText(costEnv, roots, "cel.bind(x, 0, 0)")
	if err != nil {
		fail(err)
		return
	}
	// raw: the expression's own cost with each `variables.x` counted as one identifier, as in the cel.bind form.
	raw := make([]*costRange, len(expressions))
	for i, e := range expressions {
		if !typed[i] {
			continue
		}
		usable := true
		for _, name := range closures[i] {
			if raw[variableIndex[name]] == nil {
				usable = false
			}
		}
		if !usable {
			reports[i].Problems = append(reports[i].Problems, "no cost estimate: a variable it uses could not be estimated")
			continue
		}
		text := boundForm(e.text, references[i], closures[i], expressions, variableIndex, references)
		inclusive, err := estimateText(costEnv, roots, text)
		if err != nil {
			reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("no cost estimate: %v", err))
			continue
		}
		own := inclusive
		for _, name := range closures[i] {
			own = subtract(own, raw[variableIndex[name]].plus(bindCost))
		}
		raw[i] = &own
		// A select on `variables` costs one more than the identifier the cel.bind form has in its place.
		selects := uint64(len(references[i]))
		cost := own.plus(newCostRange(selects, selects))
		reports[i].Cost = &cost
		withVariables := cost
		for _, name := range closures[i] {
			withVariables = withVariables.plus(*reports[variableIndex[name]].Cost)
		}
		reports[i].CostWithVariables = &withVariables
		if cost.Max > celconfig.PerCallLimit {
			reports[i].Problems = append(reports[i].Problems, fmt.Sprintf("can cost %s, over PerCallLimit %d", describeMax(cost), celconfig.PerCallLimit))
		}
	}
}

func describeMax(c costRange) string {
	if c.Unbounded {
		return "an unbounded amount (the estimator found no bound)"
	}
	return fmt.Sprintf("%d", c.Max)
}

// The sums over the validation pass and the messageExpression pass: each expression, and each variable reached
// from the pass once. False when some expression has no estimate (its problem is reported already).
func passCosts(reports []expressionReport) (map[string]costRange, bool) {
	costOfVariable := map[string]*costRange{}
	for _, e := range reports {
		if e.Role == "variable" {
			costOfVariable[e.Name] = e.Cost
		}
	}
	passes := map[string]costRange{}
	for _, pass := range []string{"validation", "messageExpression"} {
		var sum costRange
		reached := map[string]bool{}
		for _, e := range reports {
			if e.Role != pass {
				continue
			}
			if e.Cost == nil {
				return nil, false
			}
			sum = sum.plus(*e.Cost)
			for _, name := range e.Variables {
				reached[name] = true
			}
		}
		for name := range reached {
			if costOfVariable[name] == nil {
				return nil, false
			}
			sum = sum.plus(*costOfVariable[name])
		}
		passes[pass+"s"] = sum
	}
	return passes, true
}

// The dearest mutation with the variables it reaches: what one mutation's evaluation can charge against its
// RuntimeCELCostBudget. False when some mutation has no estimate (its problem is reported already).
func largestMutation(reports []expressionReport) (costRange, bool) {
	var largest costRange
	for _, e := range reports {
		if e.Role != "mutation" {
			continue
		}
		if e.CostWithVariables == nil {
			return costRange{}, false
		}
		if e.CostWithVariables.Max >= largest.Max {
			largest = *e.CostWithVariables
		}
	}
	return largest, true
}

type variableReference struct {
	name  string
	start int // code point offset of `variables`
	end   int // code point offset just past the variable's name
}

var referencePattern = regexp.MustCompile(`^variables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)`)

func variableReferences(env *cel.Env, text string) ([]variableReference, error) {
	parsed, issues := env.Parse(text)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("does not parse: %s", issues.String())
	}
	native := parsed.NativeRep()
	source := []rune(text)
	seen := map[int]bool{}
	var refs []variableReference
	var problem error
	celast.PostOrderVisit(native.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.SelectKind {
			return
		}
		sel := e.AsSelect()
		operand := sel.Operand()
		if operand.Kind() != celast.IdentKind || operand.AsIdent() != plugincel.VariableVarName {
			return
		}
		if sel.IsTestOnly() {
			problem = fmt.Errorf("has(variables.%s) is not estimated by celcost", sel.FieldName())
			return
		}
		at, ok := native.SourceInfo().GetOffsetRange(operand.ID())
		if !ok || int(at.Start) >= len(source) {
			problem = fmt.Errorf("no source position for variables.%s", sel.FieldName())
			return
		}
		start := int(at.Start)
		if seen[start] {
			return // a macro may repeat an argument's nodes
		}
		m := referencePattern.FindStringSubmatchIndex(string(source[start:]))
		if m == nil || string(source[start:])[m[2]:m[3]] != sel.FieldName() {
			problem = fmt.Errorf("cannot find variables.%s in the text at offset %d", sel.FieldName(), start)
			return
		}
		seen[start] = true
		refs = append(refs, variableReference{name: sel.FieldName(), start: start, end: start + len([]rune(string(source[start:])[:m[1]]))})
	}))
	if problem != nil {
		return nil, problem
	}
	sort.Slice(refs, func(a, b int) bool { return refs[a].start < refs[b].start })
	return refs, nil
}

func withBoundNames(text string, refs []variableReference) string {
	source := []rune(text)
	var out strings.Builder
	last := 0
	for _, ref := range refs {
		out.WriteString(string(source[last:ref.start]))
		out.WriteString(boundVariablePrefix + ref.name)
		last = ref.end
	}
	out.WriteString(string(source[last:]))
	return out.String()
}

// cel.bind(v1, <v1>, cel.bind(v2, <v2>, ... <text>)) with every `variables.x` replaced by the bound name.
func boundForm(text string, refs []variableReference, closure []string, expressions []namedExpression, variableIndex map[string]int, references [][]variableReference) string {
	var out strings.Builder
	for _, name := range closure {
		j := variableIndex[name]
		// A line break before each closing parenthesis: an expression may end in a // comment.
		fmt.Fprintf(&out, "cel.bind(%s%s, (%s\n), ", boundVariablePrefix, name, withBoundNames(expressions[j].text, references[j]))
	}
	out.WriteString("(" + withBoundNames(text, refs) + "\n)")
	out.WriteString(strings.Repeat(")", len(closure)))
	return out.String()
}

func estimateText(env *cel.Env, roots map[string]*apiservercel.DeclType, text string) (costRange, error) {
	checked, issues := env.Compile(text)
	if issues != nil && issues.Err() != nil {
		return costRange{}, fmt.Errorf("the cel.bind form does not compile: %s", issues.String())
	}
	sizes := newSchemaSizeEstimator(roots, checked.NativeRep())
	estimator := &boundedCostEstimator{CostEstimator: &library.CostEstimator{SizeEstimator: sizes}, sizes: sizes}
	c, err := env.EstimateCost(checked, estimator)
	if err != nil {
		return costRange{}, err
	}
	return newCostRange(c.Min, c.Max), nil
}

func subtract(a, b costRange) costRange {
	if a.Unbounded || b.Unbounded {
		return newCostRange(saturatingSub(a.Min, b.Min), math.MaxUint64)
	}
	return newCostRange(saturatingSub(a.Min, b.Min), saturatingSub(a.Max, b.Max))
}

func saturatingAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func saturatingSub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// ---------------------------------------------------------------------------------------------------------
// Sizes

// The size estimator of CRD validation rules (apiextensions-apiserver schema/cel/compilation.go sizeEstimator)
// walks the schema's declared type along the path cel-go's coster gives a node, and takes its MaxElements. This one
// does too, and beyond that traces the declared type through what the coster has no path for: optional selection
// (`a.?b`, `m[?k]`), optional.of, .value() and .orValue(literal), comprehension and cel.bind variables, the lists
// filter() and map() build, list literals and conditionals of values of one type, and string() of a scalar.
// Each of these yields values no larger than the declared type it is traced to, so the bound stays sound.
type schemaSizeEstimator struct {
	checked *celast.AST
	roots   map[string]*apiservercel.DeclType
	// bounds: the declared type that bounds an expression's value, by expression id.
	bounds map[int64]*apiservercel.DeclType
	// floors: the size of an .orValue(literal) default, which the result may have instead.
	floors map[int64]uint64
}

func newSchemaSizeEstimator(roots map[string]*apiservercel.DeclType, checked *celast.AST) *schemaSizeEstimator {
	s := &schemaSizeEstimator{checked: checked, roots: roots, bounds: map[int64]*apiservercel.DeclType{}, floors: map[int64]uint64{}}
	s.trace(checked.Expr(), map[string]*apiservercel.DeclType{})
	return s
}

func (s *schemaSizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	// A type (`type(x)`, or a type's name such as `map`) has no size: cel-go's runtime sizes only values with a size
	// (strings, bytes, lists, maps), so `type(x) == map` costs 1 when it runs, where the estimate would have no bound.
	if element.Type() != nil && element.Type().Kind() == types.TypeKind {
		return &checker.SizeEstimate{Min: 1, Max: 1}
	}
	// The API server's estimator asks about nodes of its own making too (a list's element), without an expression.
	if element.Expr() != nil {
		if bound := s.bounds[element.Expr().ID()]; bound != nil {
			size := sizeOf(bound)
			if floor := s.floors[element.Expr().ID()]; floor > size.Max {
				size.Max = floor
			}
			return size
		}
	}
	if size := s.sizeAt(element.Path()); size != nil {
		return size
	}
	if element.Expr() != nil {
		return s.scalarStringSize(element.Expr())
	}
	return nil
}

func (s *schemaSizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// The API server's library.CostEstimator sizes a list's elements (join, sum, indexOf and the like) by a node of its
// own making whose path is the list's path plus "@items", so a list without a path has elements of no known size.
// This gives such a list, when its bound is traced, a path that names the bound, and leaves the rest to the library.
type boundedCostEstimator struct {
	*library.CostEstimator
	sizes *schemaSizeEstimator
}

func (b *boundedCostEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if target != nil {
		named := b.sizes.withBoundPath(*target)
		target = &named
	}
	named := make([]checker.AstNode, len(args))
	for i, arg := range args {
		named[i] = b.sizes.withBoundPath(arg)
	}
	return b.CostEstimator.EstimateCallCost(function, overloadID, target, named)
}

const boundPathPrefix = "#bound-"

type pathNode struct {
	checker.AstNode
	path []string
}

func (p pathNode) Path() []string { return p.path }

func (s *schemaSizeEstimator) withBoundPath(node checker.AstNode) checker.AstNode {
	if len(node.Path()) > 0 || node.Expr() == nil || s.bounds[node.Expr().ID()] == nil {
		return node
	}
	return pathNode{AstNode: node, path: []string{fmt.Sprintf("%s%d", boundPathPrefix, node.Expr().ID())}}
}

func sizeOf(t *apiservercel.DeclType) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.MaxElements)}
}

func (s *schemaSizeEstimator) sizeAt(path []string) *checker.SizeEstimate {
	if len(path) == 0 {
		return nil
	}
	current := s.roots[path[0]]
	if id, err := strconv.ParseInt(strings.TrimPrefix(path[0], boundPathPrefix), 10, 64); err == nil && strings.HasPrefix(path[0], boundPathPrefix) {
		current = s.bounds[id]
	}
	for _, step := range path[1:] {
		if current == nil {
			return nil
		}
		switch step {
		case "@items", "@values":
			current = current.ElemType
		case "@keys":
			current = current.KeyType
		default:
			current = fieldType(current, step)
		}
	}
	if current == nil {
		return nil
	}
	return sizeOf(current)
}

// A property named like a CEL keyword is declared escaped; the type provider finds it under its plain name too
// (DeclTypeProvider.FindStructFieldType), so `metadata.namespace` type-checks and must be sized as well.
func fieldType(t *apiservercel.DeclType, name string) *apiservercel.DeclType {
	if t.Fields == nil {
		// A map selected like an object: `m.key` is `m["key"]`.
		if t.IsMap() {
			return t.ElemType
		}
		return nil
	}
	field, ok := t.Fields[name]
	if !ok {
		field, ok = t.Fields["__"+name+"__"]
	}
	if !ok {
		return nil
	}
	return field.Type
}

// The longest text string() makes of a scalar. cel-go gives string(int) no size, so every message that quotes a
// number would otherwise count as unbounded.
func (s *schemaSizeEstimator) scalarStringSize(e celast.Expr) *checker.SizeEstimate {
	if e.Kind() != celast.CallKind {
		return nil
	}
	call := e.AsCall()
	if call.FunctionName() != "string" || call.IsMemberFunction() || len(call.Args()) != 1 {
		return nil
	}
	var longest uint64
	switch s.checked.GetType(call.Args()[0].ID()).Kind() {
	case types.IntKind, types.UintKind:
		longest = uint64(len("-9223372036854775808"))
	case types.BoolKind:
		longest = uint64(len("false"))
	case types.DoubleKind:
		longest = uint64(len("-2.2250738585072014e-308"))
	default:
		return nil
	}
	return &checker.SizeEstimate{Min: 1, Max: longest}
}

// trace records the declared type that bounds each expression it can tell. scope maps the local variables in force
// (comprehension and cel.bind variables) to their bound, or to nil when they have none.
func (s *schemaSizeEstimator) trace(e celast.Expr, scope map[string]*apiservercel.DeclType) {
	boundOf := func(x celast.Expr) *apiservercel.DeclType { return s.bounds[x.ID()] }
	set := func(t *apiservercel.DeclType) {
		if t != nil {
			s.bounds[e.ID()] = t
		}
	}
	switch e.Kind() {
	case celast.LiteralKind:
		if text, ok := e.AsLiteral().(types.String); ok {
			set(stringBound(int64(len([]rune(string(text))))))
		}
	case celast.IdentKind:
		name := e.AsIdent()
		if t, local := scope[name]; local {
			set(t)
		} else {
			set(s.roots[name])
		}
	case celast.SelectKind:
		sel := e.AsSelect()
		s.trace(sel.Operand(), scope)
		if t := boundOf(sel.Operand()); t != nil && !sel.IsTestOnly() {
			set(fieldType(t, sel.FieldName()))
		}
	case celast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			s.trace(call.Target(), scope)
		}
		for _, arg := range call.Args() {
			s.trace(arg, scope)
		}
		args := call.Args()
		switch call.FunctionName() {
		case operators.OptSelect:
			if t := boundOf(args[0]); t != nil && len(args) == 2 && args[1].Kind() == celast.LiteralKind {
				if field, ok := args[1].AsLiteral().(types.String); ok {
					set(fieldType(t, string(field)))
				}
			}
		case "optional.of", "optional.ofNonZeroValue", "dyn":
			if len(args) == 1 {
				set(boundOf(args[0]))
			}
		case "value":
			if call.IsMemberFunction() && len(args) == 0 {
				set(boundOf(call.Target()))
			}
		case "orValue":
			if call.IsMemberFunction() && len(args) == 1 {
				if floor, literal := literalSize(args[0]); literal && boundOf(call.Target()) != nil {
					set(boundOf(call.Target()))
					s.floors[e.ID()] = floor
				}
			}
		case operators.Index, operators.OptIndex:
			if t := boundOf(args[0]); t != nil && len(args) == 2 && (t.IsList() || t.IsMap()) {
				set(t.ElemType)
			}
		case operators.Conditional:
			if len(args) == 3 {
				set(mergeBounds(boundOf(args[1]), boundOf(args[2])))
			}
		}
	case celast.ComprehensionKind:
		comp := e.AsComprehension()
		s.trace(comp.IterRange(), scope)
		s.trace(comp.AccuInit(), scope)
		inner := make(map[string]*apiservercel.DeclType, len(scope)+3)
		for k, v := range scope {
			inner[k] = v
		}
		over := boundOf(comp.IterRange())
		var keys, values *apiservercel.DeclType
		if over != nil {
			if over.IsMap() {
				keys, values = over.KeyType, over.ElemType
			} else if over.IsList() {
				values = over.ElemType
			}
		}
		if comp.HasIterVar2() {
			inner[comp.IterVar()] = keys // a list index is an int, which needs no bound
			inner[comp.IterVar2()] = values
		} else if over != nil && over.IsMap() {
			inner[comp.IterVar()] = keys
		} else {
			inner[comp.IterVar()] = values
		}
		inner[comp.AccuVar()] = nil
		if isBind(comp) {
			inner[comp.AccuVar()] = boundOf(comp.AccuInit())
		}
		s.trace(comp.LoopCondition(), inner)
		s.trace(comp.LoopStep(), inner)
		s.trace(comp.Result(), inner)
		if isBind(comp) {
			set(boundOf(comp.Result()))
		} else if element, ok := builtElement(comp); ok && over != nil && over.IsList() {
			// filter() and map() build at most one element per element they go through.
			if t := boundOf(element); t != nil {
				set(apiservercel.NewListType(t, over.MaxElements))
			}
		}
	case celast.ListKind:
		var element *apiservercel.DeclType
		for i, item := range e.AsList().Elements() {
			s.trace(item, scope)
			if i == 0 {
				element = boundOf(item)
			} else {
				element = mergeBounds(element, boundOf(item))
			}
		}
		if element != nil {
			set(apiservercel.NewListType(element, int64(e.AsList().Size())))
		}
	case celast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			s.trace(entry.AsMapEntry().Key(), scope)
			s.trace(entry.AsMapEntry().Value(), scope)
		}
	case celast.StructKind:
		for _, field := range e.AsStruct().Fields() {
			s.trace(field.AsStructField().Value(), scope)
		}
	}
}

func stringBound(length int64) *apiservercel.DeclType {
	return copyDeclType(apiservercel.StringType, length)
}

// The bound of a value that is one of two: the same declared type, or a string, list or map as long as the longer.
func mergeBounds(a, b *apiservercel.DeclType) *apiservercel.DeclType {
	switch {
	case a == nil || b == nil:
		return nil
	case a == b:
		return a
	case a.IsList() && b.IsList():
		if element := mergeBounds(a.ElemType, b.ElemType); element != nil {
			return apiservercel.NewListType(element, max(a.MaxElements, b.MaxElements))
		}
	case a.IsMap() && b.IsMap():
		keys, values := mergeBounds(a.KeyType, b.KeyType), mergeBounds(a.ElemType, b.ElemType)
		if keys != nil && values != nil {
			return apiservercel.NewMapType(keys, values, max(a.MaxElements, b.MaxElements))
		}
	case a.CelType().Kind() == types.StringKind && b.CelType().Kind() == types.StringKind:
		return stringBound(max(a.MaxElements, b.MaxElements))
	}
	return nil
}

func literalSize(e celast.Expr) (uint64, bool) {
	switch e.Kind() {
	case celast.LiteralKind:
		switch v := e.AsLiteral().(type) {
		case types.String:
			return uint64(len([]rune(string(v)))), true
		case types.Bytes:
			return uint64(len(v)), true
		default:
			return 1, true
		}
	case celast.ListKind:
		if e.AsList().Size() == 0 {
			return 0, true
		}
	case celast.MapKind:
		if e.AsMap().Size() == 0 {
			return 0, true
		}
	}
	return 0, false
}

// The shape cel-go's coster recognises as cel.bind (checker/cost.go isBind).
func isBind(comp celast.ComprehensionExpr) bool {
	iterRange, loopCondition := comp.IterRange(), comp.LoopCondition()
	return iterRange.Kind() == celast.ListKind && iterRange.AsList().Size() == 0 &&
		loopCondition.Kind() == celast.LiteralKind && loopCondition.AsLiteral() == types.False &&
		comp.AccuVar() != parser.AccumulatorName
}

// The shapes filter() and map() expand to: start from [], and append [x] (filter) or [f(x)] (map) for each element,
// or for each element a condition keeps. Returns the expression appended.
func builtElement(comp celast.ComprehensionExpr) (celast.Expr, bool) {
	isAccumulator := func(e celast.Expr) bool { return e.Kind() == celast.IdentKind && e.AsIdent() == comp.AccuVar() }
	if comp.AccuInit().Kind() != celast.ListKind || comp.AccuInit().AsList().Size() != 0 || !isAccumulator(comp.Result()) {
		return nil, false
	}
	step := comp.LoopStep()
	if step.Kind() == celast.CallKind && step.AsCall().FunctionName() == operators.Conditional && len(step.AsCall().Args()) == 3 {
		if !isAccumulator(step.AsCall().Args()[2]) {
			return nil, false
		}
		step = step.AsCall().Args()[1]
	}
	if step.Kind() != celast.CallKind || step.AsCall().FunctionName() != operators.Add || len(step.AsCall().Args()) != 2 {
		return nil, false
	}
	appended := step.AsCall().Args()[1]
	if !isAccumulator(step.AsCall().Args()[0]) || appended.Kind() != celast.ListKind || appended.AsList().Size() != 1 {
		return nil, false
	}
	return appended.AsList().Elements()[0], true
}
