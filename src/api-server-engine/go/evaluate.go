package main

import (
	"encoding/json"
	"fmt"

	celpb "cel.dev/expr"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"google.golang.org/protobuf/encoding/protojson"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

// evaluate: one CEL expression in the environment a CRD's x-kubernetes-validations rule is compiled in (the base
// environment of k8s.io/apiserver at the compatibility version kube-apiserver uses for CRDs, with Kubernetes' own
// libraries), without `self` and `oldSelf`: the caller declares its variables and binds them. Values and types travel
// in the protobuf JSON of cel.expr.Value, cel.expr.Decl and cel.expr.Type, as CEL's conformance tests write them.

type evaluateRequest struct {
	Expr string `json:"expr"`
	// A namespace for resolving names (cel.Container); CRD rules have none.
	Container string `json:"container,omitempty"`
	// cel.expr.Decl, each a variable (ident) or a function's overloads (which can be checked, not called).
	TypeEnv []json.RawMessage `json:"typeEnv,omitempty"`
	// cel.expr.Value by variable name.
	Bindings map[string]json.RawMessage `json:"bindings,omitempty"`
	// Parse and check only: the answer has the type, no value.
	CheckOnly bool `json:"checkOnly,omitempty"`
}

type evaluateAnswer struct {
	// The checked type of the expression (cel.expr.Type), once it compiled.
	Type json.RawMessage `json:"type,omitempty"`
	// The result (cel.expr.Value).
	Value json.RawMessage `json:"value,omitempty"`
	// What compiling says (the parser, the type checker, Kubernetes' literal and format validators, building the
	// program, which folds constants): kube-apiserver refuses a CRD whose rule does not compile.
	CompileError string `json:"compileError,omitempty"`
	// What evaluation says (no such overload, division by zero, the cost limit): a rule that errs fails validation.
	EvalError string `json:"evalError,omitempty"`
	// A failure of the engine itself, or of its caller (a request that is not JSON, a declaration it cannot read).
	Error string `json:"error,omitempty"`
}

func answerEvaluate(input []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = mustJSON(evaluateAnswer{Error: panicText(p)})
		}
	}()
	var request evaluateRequest
	if err := json.Unmarshal(input, &request); err != nil {
		return mustJSON(evaluateAnswer{Error: "the request is not JSON: " + err.Error()})
	}
	answer, err := evaluateExpression(&request)
	if err != nil {
		return mustJSON(evaluateAnswer{Error: err.Error()})
	}
	return mustJSON(answer)
}

func evaluateExpression(request *evaluateRequest) (*evaluateAnswer, error) {
	// The environment a new rule of a CRD is checked in when the CRD is written (its stored rules are compiled in
	// StoredExpressionsEnv, which adds only libraries introduced after the compatibility version: none in v1.36).
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).NewExpressionsEnv()
	options := []cel.EnvOption{}
	if request.Container != "" {
		options = append(options, cel.Container(request.Container))
	}
	for i, raw := range request.TypeEnv {
		decl := &celpb.Decl{}
		if err := protojson.Unmarshal(raw, decl); err != nil {
			return nil, fmt.Errorf("typeEnv[%d] is not a cel.expr.Decl: %w", i, err)
		}
		option, err := cel.ProtoAsDeclaration(decl)
		if err != nil {
			return nil, fmt.Errorf("typeEnv[%d] (%s): %w", i, decl.GetName(), err)
		}
		options = append(options, option)
	}
	env := base
	if len(options) > 0 {
		var err error
		if env, err = base.Extend(options...); err != nil {
			return nil, fmt.Errorf("the declarations do not extend the environment: %w", err)
		}
	}

	ast, issues := env.Compile(request.Expr)
	if issues != nil && issues.Err() != nil {
		return &evaluateAnswer{CompileError: issues.String()}, nil
	}
	answer := &evaluateAnswer{}
	if checkedType, err := types.TypeToProto(ast.OutputType()); err == nil {
		if answer.Type, err = protojson.Marshal(checkedType); err != nil {
			return nil, fmt.Errorf("encoding the type %s: %w", ast.OutputType(), err)
		}
	}
	if request.CheckOnly {
		return answer, nil
	}

	activation := make(map[string]any, len(request.Bindings))
	for name, raw := range request.Bindings {
		value := &celpb.Value{}
		if err := protojson.Unmarshal(raw, value); err != nil {
			return nil, fmt.Errorf("the binding of %s is not a cel.expr.Value: %w", name, err)
		}
		bound, err := cel.ProtoAsValue(env.CELTypeAdapter(), value)
		if err != nil {
			return nil, fmt.Errorf("the binding of %s: %w", name, err)
		}
		activation[name] = bound
	}
	// The program options apiextensions compiles each rule with (the base environment adds the runtime cost
	// tracking and the per-call limit too).
	program, err := env.Program(ast,
		cel.CostLimit(celconfig.PerCallLimit),
		cel.CostTracking(&library.CostEstimator{}),
		cel.InterruptCheckFrequency(celconfig.CheckFrequency),
	)
	if err != nil {
		return &evaluateAnswer{CompileError: "program instantiation failed: " + err.Error()}, nil
	}
	result, _, err := program.Eval(activation)
	if err != nil {
		answer.EvalError = err.Error()
		return answer, nil
	}
	if answer.Value, err = valueJSON(result); err != nil {
		answer.Error = err.Error()
	}
	return answer, nil
}

func valueJSON(result ref.Val) (json.RawMessage, error) {
	value, err := cel.ValueAsProto(result)
	if err != nil {
		return nil, fmt.Errorf("the result (%s) has no cel.expr.Value form: %w", result.Type().TypeName(), err)
	}
	return protojson.Marshal(value)
}
