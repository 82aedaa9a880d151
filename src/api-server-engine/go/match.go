package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
)

// match: a webhook's matchConditions against one request, as kube-apiserver v1.36 decides whether to call the
// webhook at all, with its own code:
//
//   - when a webhook configuration is written, each expression is compiled as the API server's validation of
//     ValidatingWebhookConfiguration and MutatingWebhookConfiguration compiles it (its strict stateless compiler,
//     the NewExpressions environment, `object`, `oldObject`, `request`, `namespaceObject` and `authorizer`
//     declared, a bool required): an expression that fails there is a configuration the API server refuses;
//   - on a request, the webhook dispatcher's compile (StoredExpressions) and matchconditions.Matcher: every
//     condition evaluated within the runtime cost budget all of a webhook's conditions share, the first false one
//     skips the webhook, and an error (the budget exhausted, no such key) fails the request under
//     failurePolicy Fail and skips the webhook under Ignore.
//
// The request is the one the dispatcher builds after matchPolicy Equivalent has converted it: the object and old
// object in the version the webhook's rules name (null where the operation has none: CREATE has no old object,
// DELETE no object), that version's kind and resource.

type matchCondition struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

type matchRequest struct {
	Conditions []matchCondition `json:"conditions"`
	// Fail (the API server's default) or Ignore.
	FailurePolicy string                      `json:"failurePolicy,omitempty"`
	Operation     string                      `json:"operation"`
	Kind          metav1.GroupVersionKind     `json:"kind"`
	Resource      metav1.GroupVersionResource `json:"resource"`
	SubResource   string                      `json:"subResource,omitempty"`
	Name          string                      `json:"name,omitempty"`
	Namespace     string                      `json:"namespace,omitempty"`
	Object        json.RawMessage             `json:"object,omitempty"`
	OldObject     json.RawMessage             `json:"oldObject,omitempty"`
	Username      string                      `json:"username,omitempty"`
	Groups        []string                    `json:"groups,omitempty"`
	DryRun        bool                        `json:"dryRun,omitempty"`
}

type conditionProblem struct {
	Name   string `json:"name"`
	Detail string `json:"detail"`
}

type matchAnswer struct {
	// What the API server says of each condition that does not compile: it refuses the configuration.
	CompileErrors []conditionProblem `json:"compileErrors,omitempty"`
	// Whether the API server calls the webhook.
	Matches bool `json:"matches"`
	// The condition that evaluated to false, when one did.
	FailedCondition string `json:"failedCondition,omitempty"`
	// Under failurePolicy Fail, why the request is refused without calling the webhook (an evaluation error).
	EvalError string `json:"evalError,omitempty"`
	// The runtime cost the conditions spent of their budget (RuntimeCELCostBudgetMatchConditions).
	Cost int64 `json:"cost"`
	// The budget, for the caller to compare with.
	Budget int64 `json:"budget"`
	// A failure of the engine itself, or of its caller.
	Error string `json:"error,omitempty"`
}

func answerMatch(input []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = mustJSON(matchAnswer{Error: panicText(p)})
		}
	}()
	var request matchRequest
	if err := json.Unmarshal(input, &request); err != nil {
		return mustJSON(matchAnswer{Error: "the request is not JSON: " + err.Error()})
	}
	answer, err := matchConditions(&request)
	if err != nil {
		return mustJSON(matchAnswer{Error: err.Error()})
	}
	return mustJSON(answer)
}

// The compilers, as the API server holds them: built once (the base environment is costly to build).
var (
	matchStaticCompiler    plugincel.Compiler
	matchConditionCompiler plugincel.ConditionCompiler
	// A webhook's conditions are compiled once per configuration, as the API server's webhook accessor does.
	compiledConditions = map[string]*compiledMatch{}
	// Held while compiling: the native process answers requests at once (serve_native.go).
	compileMatchMu sync.Mutex
)

var matchDeclarations = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}

type compiledMatch struct {
	problems  []conditionProblem
	evaluator plugincel.ConditionEvaluator
}

func compileMatch(conditions []matchCondition) *compiledMatch {
	key, _ := json.Marshal(conditions)
	compileMatchMu.Lock()
	defer compileMatchMu.Unlock()
	if compiled, ok := compiledConditions[string(key)]; ok {
		return compiled
	}
	if matchStaticCompiler == nil {
		baseEnv := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
		matchStaticCompiler = plugincel.NewCompiler(baseEnv)
		matchConditionCompiler = plugincel.NewConditionCompiler(baseEnv)
	}
	compiled := &compiledMatch{}
	// The configuration's validation (validateMatchConditionsExpression): every condition must compile.
	accessors := make([]plugincel.ExpressionAccessor, len(conditions))
	for i, condition := range conditions {
		accessor := &matchconditions.MatchCondition{Name: condition.Name, Expression: strings.TrimSpace(condition.Expression)}
		accessors[i] = accessor
		if accessor.Expression == "" {
			compiled.problems = append(compiled.problems, conditionProblem{Name: condition.Name, Detail: "expression: Required value"})
			continue
		}
		if result := matchStaticCompiler.CompileCELExpression(accessor, matchDeclarations, environment.NewExpressions); result.Error != nil {
			compiled.problems = append(compiled.problems, conditionProblem{Name: condition.Name, Detail: result.Error.Detail})
		}
	}
	if len(compiled.problems) == 0 {
		// The dispatcher's compile (the webhook accessor's GetCompiledMatcher).
		compiled.evaluator = matchConditionCompiler.CompileCondition(accessors, matchDeclarations, environment.StoredExpressions)
	}
	compiledConditions[string(key)] = compiled
	return compiled
}

func matchConditions(request *matchRequest) (*matchAnswer, error) {
	answer := &matchAnswer{Budget: celconfig.RuntimeCELCostBudgetMatchConditions}
	compiled := compileMatch(request.Conditions)
	if len(compiled.problems) > 0 {
		answer.CompileErrors = compiled.problems
		return answer, nil
	}

	object, err := requestObject(request.Object, "object")
	if err != nil {
		return nil, err
	}
	oldObject, err := requestObject(request.OldObject, "oldObject")
	if err != nil {
		return nil, err
	}
	kind := schema.GroupVersionKind{Group: request.Kind.Group, Version: request.Kind.Version, Kind: request.Kind.Kind}
	resource := schema.GroupVersionResource{Group: request.Resource.Group, Version: request.Resource.Version, Resource: request.Resource.Resource}
	operation := admission.Operation(strings.ToUpper(request.Operation))
	attributes := admission.NewAttributesRecord(object, oldObject, kind, request.Namespace, request.Name, resource, request.SubResource,
		operation, operationOptions(operation), request.DryRun, &user.DefaultInfo{Name: request.Username, Groups: request.Groups})
	versioned := &admission.VersionedAttributes{Attributes: attributes, VersionedKind: kind, VersionedObject: object, VersionedOldObject: oldObject}

	evaluator := compiled.evaluator
	failurePolicy := admissionregistrationv1.Fail
	if strings.EqualFold(request.FailurePolicy, string(admissionregistrationv1.Ignore)) {
		failurePolicy = admissionregistrationv1.Ignore
	}
	noOpinion := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionNoOpinion, "", nil
	})
	ctx := context.Background()
	result := matchconditions.NewMatcher(evaluator, &failurePolicy, "webhook", "validating", "crdgate-engine").Match(ctx, versioned, nil, noOpinion)
	answer.Matches = result.Matches
	answer.FailedCondition = result.FailedConditionName
	if result.Error != nil {
		answer.EvalError = result.Error.Error()
	}

	// The same evaluation once more, for what it cost: the matcher keeps that to itself.
	admissionRequest := plugincel.CreateAdmissionRequest(attributes, metav1.GroupVersionResource(resource), metav1.GroupVersionKind(kind))
	_, remaining, err := evaluator.ForInput(ctx, versioned, admissionRequest, plugincel.OptionalVariableBindings{Authorizer: noOpinion}, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if err == nil {
		answer.Cost = celconfig.RuntimeCELCostBudgetMatchConditions - remaining
	}
	return answer, nil
}

// An object as the API server decodes a request body into unstructured content (integers as int64, other numbers
// as float64); absent or null is no object.
func requestObject(raw json.RawMessage, what string) (runtime.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("the %s cannot be decoded: %w", what, err)
	}
	return decoded, nil
}

func operationOptions(operation admission.Operation) runtime.Object {
	switch operation {
	case admission.Create:
		return &metav1.CreateOptions{}
	case admission.Update:
		return &metav1.UpdateOptions{}
	case admission.Delete:
		return &metav1.DeleteOptions{}
	}
	return nil
}
