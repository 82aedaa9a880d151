// cel-timer: the time kube-apiserver's own CEL validator takes over a CRD's x-kubernetes-validations rules, natively,
// for `npm run bench -- --check` to set crdgate's engine (the same Go, compiled to WebAssembly) against.
//
// It does what the API server does with a CRD's rules and nothing else: the served version's structural schema
// (defaults pruned, as the server keeps it) compiled once by k8s.io/apiextensions-apiserver's cel.NewValidator
// with the per-expression cost limit, then Validator.Validate on each object with the runtime cost budget of one
// request; for an update, with the stored object as oldSelf and ratcheting through a CorrelatedObject, as the
// custom-resource strategy calls it. The objects are decoded and defaulted before the clock starts (what the API
// server's codec has done before validation begins), so the figure is the rules' evaluation alone.
//
// Usage: cel-timer --crd CRD.yaml --objects NEW.jsonl [--old OLD.jsonl] [--rounds N]
//
//	NEW.jsonl: one object per line (JSON); OLD.jsonl: the stored object of each, line for line, for the updates.
//
// Prints one JSON report on stdout: for create (and update), the number of rule evaluations over all objects (each
// rule at each place the objects reach it, transition rules only where an old value correlates, as the validator
// decides) and each round's wall and CPU nanoseconds. Each pass is run once untimed to warm up, then timed `rounds`
// times. The bench runs it with GOMAXPROCS=1: the engine's Go runs on one thread in WebAssembly, so both sides then
// have the same runtime, garbage collector included, on one core, and differ only in native code against WebAssembly.
// Exit 1 when a rule refuses an object (the bench generates valid ones: a refusal would time something else).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

type passReport struct {
	Objects int `json:"objects"`
	// Rule evaluations over all objects in one round.
	Evaluations int `json:"evaluations"`
	// Every timed round's wall time and the process's CPU time (user + system), in nanoseconds. CPU time is what
	// the bench compares: on a machine shared with other work, waiting for a core is not the validator's cost.
	RoundsNs    []int64 `json:"roundsNs"`
	RoundsCPUNs []int64 `json:"roundsCpuNs"`
}

type report struct {
	// The module versions the validator was built from (k8s.io/apiextensions-apiserver, cel-go).
	Modules   map[string]string `json:"modules"`
	GoVersion string            `json:"goVersion"`
	// Rules in the served version's schema.
	Rules  int         `json:"rules"`
	Create passReport  `json:"create"`
	Update *passReport `json:"update,omitempty"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		modules := moduleVersions()
		fmt.Printf("cel-timer: k8s.io/apiextensions-apiserver %s, cel-go %s\n", modules["k8s.io/apiextensions-apiserver"], modules["github.com/google/cel-go"])
		return
	}
	crdPath := flag.String("crd", "", "the CustomResourceDefinition (YAML or JSON)")
	objectsPath := flag.String("objects", "", "the objects, one JSON document a line")
	oldPath := flag.String("old", "", "the stored object of each, line for line (times updates too)")
	rounds := flag.Int("rounds", 5, "timed rounds of each pass; the best is reported")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run here (to see where the time goes)")
	flag.Parse()
	if *cpuProfile != "" {
		file, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(file)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cel-timer: %v\n", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*crdPath, *objectsPath, *oldPath, *rounds); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintf(os.Stderr, "cel-timer: %v\n", err)
		os.Exit(1)
	}
}

func run(crdPath, objectsPath, oldPath string, rounds int) error {
	if crdPath == "" || objectsPath == "" || rounds < 1 {
		return errors.New("usage: cel-timer --crd CRD.yaml --objects NEW.jsonl [--old OLD.jsonl] [--rounds N]")
	}
	objects, err := readObjects(objectsPath)
	if err != nil {
		return err
	}
	if len(objects) == 0 {
		return errors.New("no objects")
	}
	version, err := versionOf(objects[0])
	if err != nil {
		return err
	}
	structural, err := servedSchema(crdPath, version)
	if err != nil {
		return err
	}
	// As kube-apiserver builds it when it starts serving the version (and as crdgate's engine does).
	validator := cel.NewValidator(structural, true, celconfig.PerCallLimit)
	if validator == nil {
		return errors.New("the schema has no x-kubernetes-validations rules")
	}
	for _, object := range objects {
		structuraldefaulting.Default(object, structural)
	}
	rep := report{Modules: moduleVersions(), GoVersion: runtime.Version(), Rules: countRules(structural)}
	counter := &evaluationCounter{kindsByPath: map[string][]ruleKind{}}

	create := func(i int) outcome {
		errs, _ := validator.Validate(context.Background(), nil, structural, objects[i], nil, celconfig.RuntimeCELCostBudget)
		return outcome{errs.ToAggregate()}
	}
	rep.Create = passReport{Objects: len(objects)}
	for _, object := range objects {
		rep.Create.Evaluations += counter.count(structural, "", object, nil, true)
	}
	if rep.Create.RoundsNs, rep.Create.RoundsCPUNs, err = timeRounds(len(objects), rounds, create); err != nil {
		return fmt.Errorf("create: %w", err)
	}

	if oldPath != "" {
		olds, err := readObjects(oldPath)
		if err != nil {
			return err
		}
		if len(olds) != len(objects) {
			return fmt.Errorf("%d old objects for %d objects", len(olds), len(objects))
		}
		for _, old := range olds {
			structuraldefaulting.Default(old, structural)
		}
		correlationSchema := &model.Structural{Structural: structural}
		update := func(i int) outcome {
			// A new CorrelatedObject each time, as each request gets one: it memoizes what it has compared.
			correlated := common.NewCorrelatedObject(objects[i], olds[i], correlationSchema)
			errs, _ := validator.Validate(context.Background(), nil, structural, objects[i], olds[i], celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
			return outcome{errs.ToAggregate()}
		}
		pass := passReport{Objects: len(objects)}
		for i, object := range objects {
			pass.Evaluations += counter.count(structural, "", object, olds[i], true)
		}
		if pass.RoundsNs, pass.RoundsCPUNs, err = timeRounds(len(objects), rounds, update); err != nil {
			return fmt.Errorf("update: %w", err)
		}
		rep.Update = &pass
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// outcome carries a refusal out of the timed loop without formatting it there.
type outcome struct{ err error }

// timeRounds runs validate over every object once to warm up (and to prove that every object passes), then
// `rounds` times against the clock.
func timeRounds(objects, rounds int, validate func(i int) outcome) (wall, cpu []int64, err error) {
	for i := 0; i < objects; i++ {
		if result := validate(i); result.err != nil {
			return nil, nil, fmt.Errorf("object %d (line %d) is refused: %v", i, i+1, result.err)
		}
	}
	for round := 0; round < rounds; round++ {
		// Each round starts from a collected heap, so that one round does not pay for the garbage of the last.
		runtime.GC()
		started, cpuStarted := time.Now(), cpuTime()
		for i := 0; i < objects; i++ {
			validate(i)
		}
		wall = append(wall, time.Since(started).Nanoseconds())
		cpu = append(cpu, cpuTime()-cpuStarted)
	}
	return wall, cpu, nil
}

// cpuTime is the process's CPU time so far (every thread's: the garbage collector's workers too), in nanoseconds.
func cpuTime() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return usage.Utime.Nano() + usage.Stime.Nano()
}

func readObjects(path string) ([]map[string]interface{}, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var objects []map[string]interface{}
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 1<<20), 3<<20)
	for scanner.Scan() {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		// apimachinery's JSON reading, as the API server's decoder does it: whole numbers become int64.
		var object map[string]interface{}
		if err := utiljson.Unmarshal(scanner.Bytes(), &object); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, len(objects)+1, err)
		}
		objects = append(objects, object)
	}
	return objects, scanner.Err()
}

func versionOf(object map[string]interface{}) (string, error) {
	apiVersion, _ := object["apiVersion"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Version == "" {
		return "", fmt.Errorf("the first object has no usable apiVersion (%q)", apiVersion)
	}
	return gv.Version, nil
}

// servedSchema is the version's structural schema as kube-apiserver keeps it: defaults pruned of unknown fields.
func servedSchema(crdPath, version string) (*structuralschema.Structural, error) {
	text, err := os.ReadFile(crdPath)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(text, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", crdPath, err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	v1Validation, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || v1Validation == nil {
		return nil, fmt.Errorf("%s has no schema for version %q (%v)", crdPath, version, err)
	}
	validation := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1Validation, validation, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(validation.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema of %s is not structural: %w", version, err)
	}
	structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, err
	}
	return structural, nil
}

func countRules(s *structuralschema.Structural) int {
	if s == nil {
		return 0
	}
	n := len(s.XValidations) + countRules(s.Items)
	for name := range s.Properties {
		property := s.Properties[name]
		n += countRules(&property)
	}
	if s.AdditionalProperties != nil {
		n += countRules(s.AdditionalProperties.Structural)
	}
	return n
}

type ruleKind struct{ usesOldSelf, optionalOldSelf bool }

// evaluationCounter counts the rule evaluations Validator.validate makes on an object, walking it the same way:
// only non-null values; every rule of a node, except one that uses oldSelf where no old value correlates (unless
// optionalOldSelf); list items correlated only in list maps (by key), map entries and properties by name. Whether a
// rule uses oldSelf is what the API server's compiler says of it. (No messageExpression runs: every object passes.)
type evaluationCounter struct {
	// By the node's path in the schema (.name for a property, [] for items, {} for a map's values).
	kindsByPath map[string][]ruleKind
}

func (c *evaluationCounter) kinds(s *structuralschema.Structural, path string, isRoot bool) []ruleKind {
	if kinds, ok := c.kindsByPath[path]; ok {
		return kinds
	}
	results, err := cel.Compile(s, model.SchemaDeclType(s, isRoot || s.XEmbeddedResource), celconfig.PerCallLimit, environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.StoredExpressionsEnvLoader())
	kinds := make([]ruleKind, len(s.XValidations))
	for i, rule := range s.XValidations {
		kinds[i].optionalOldSelf = rule.OptionalOldSelf != nil && *rule.OptionalOldSelf
		if err == nil && i < len(results) {
			kinds[i].usesOldSelf = results[i].UsesOldSelf
		}
	}
	c.kindsByPath[path] = kinds
	return kinds
}

func (c *evaluationCounter) count(s *structuralschema.Structural, path string, object, old interface{}, isRoot bool) int {
	if s == nil || object == nil {
		return 0
	}
	if m, isMap := old.(map[string]interface{}); isMap && m == nil {
		old = nil
	}
	if l, isList := old.([]interface{}); isList && l == nil {
		old = nil
	}
	n := 0
	for _, kind := range c.kinds(s, path, isRoot) {
		if kind.usesOldSelf && old == nil && !kind.optionalOldSelf {
			continue
		}
		n++
	}
	switch value := object.(type) {
	case []interface{}:
		oldList, _ := old.([]interface{})
		correlated := common.MakeMapList(&model.Structural{Structural: s}, oldList)
		for _, item := range value {
			n += c.count(s.Items, path+"[]", item, correlated.Get(item), s.Items != nil && s.Items.XEmbeddedResource)
		}
	case map[string]interface{}:
		oldMap, _ := old.(map[string]interface{})
		if !cel.MapIsCorrelatable(s.XMapType) {
			oldMap = nil
		}
		for key, child := range value {
			var oldChild interface{}
			if oldMap != nil {
				oldChild = oldMap[key]
			}
			if s.AdditionalProperties != nil {
				n += c.count(s.AdditionalProperties.Structural, path+"{}", child, oldChild, false)
			}
			if property, ok := s.Properties[key]; ok {
				n += c.count(&property, path+"."+key, child, oldChild, false)
			}
		}
	}
	return n
}

func moduleVersions() map[string]string {
	versions := map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			versions[dep.Path] = dep.Version
		}
	}
	return map[string]string{
		"k8s.io/apiextensions-apiserver": versions["k8s.io/apiextensions-apiserver"],
		"k8s.io/apiserver":               versions["k8s.io/apiserver"],
		"github.com/google/cel-go":       versions["github.com/google/cel-go"],
	}
}
