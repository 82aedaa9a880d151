// olm-preflight: what OLM v0's catalog operator checks before it replaces a CRD it manages, for the bench's comparison
// of CRD revision checkers (`npm run bench -- --crd-tools`).
//
// OLM's own functions are unexported (package catalog of github.com/operator-framework/operator-lifecycle-manager,
// v0.46.0: validateV1CRDCompatibility and validateExistingCRs in pkg/controller/operators/catalog/operator.go, called
// from step.go, then SafeStorageVersionUpgrade in pkg/lib/crd/storage.go), and the Go module proxy does not serve that
// module, so this program does what they do, step for step, with the same apiextensions-apiserver calls:
//   - the versions served by the old CRD and still served by the new one;
//   - for each, the new version's schema converted to the internal type and compiled by validation.NewSchemaValidator
//     (OpenAPI validation only: no CEL rules, no defaults, no pruning, no ratcheting, no structural-schema checks);
//   - every existing object of that version through validation.ValidateCustomResource; the first failure blocks the
//     upgrade, unless the new CRD converts by webhook, when OLM only warns;
//   - then every version in the old CRD's status.storedVersions must still be in the new CRD's spec.
//
// OLM lists the objects from the API server in each version (a dynamic client and a pager); here they are given as
// files of objects as the API server served them, and an object is validated against the version its apiVersion
// names. A CRD file has no status: its storedVersions is then its storage version, as the API server sets on create.
//
// Usage: olm-preflight --old OLD_CRD.yaml --new NEW_CRD.yaml [--objects FILE]...
// Prints one JSON report on stdout; exit 0 whatever it found, 2 for input it cannot read.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

type objectFailure struct {
	Object  string `json:"object"`
	Version string `json:"version"`
	Error   string `json:"error"`
}

type report struct {
	// Blocked: OLM refuses to replace the CRD (the install plan fails).
	Blocked bool `json:"blocked"`
	// The error OLM reports (the first it meets), or its warning when a webhook conversion lets the upgrade through.
	Message string `json:"message,omitempty"`
	Warning string `json:"warning,omitempty"`
	// Every object that fails, though OLM stops at the first: for the comparison's counts.
	Failures          []objectFailure `json:"failures"`
	ValidatedVersions []string        `json:"validatedVersions"`
	ObjectsValidated  int             `json:"objectsValidated"`
}

type stringList []string

func (l *stringList) String() string     { return fmt.Sprint(*l) }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	oldPath := flag.String("old", "", "the CRD as it is on the cluster")
	newPath := flag.String("new", "", "the CRD OLM would apply")
	var objectPaths stringList
	flag.Var(&objectPaths, "objects", "a YAML or JSON file of existing objects (repeatable)")
	flag.Parse()
	if *oldPath == "" || *newPath == "" {
		fail(errors.New("--old and --new are required"))
	}
	oldCRD, err := readCRD(*oldPath)
	if err != nil {
		fail(err)
	}
	newCRD, err := readCRD(*newPath)
	if err != nil {
		fail(err)
	}
	var objects []*unstructured.Unstructured
	for _, path := range objectPaths {
		read, err := readObjects(path)
		if err != nil {
			fail(err)
		}
		objects = append(objects, read...)
	}
	out, err := preflight(oldCRD, newCRD, objects)
	if err != nil {
		fail(err)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(out); err != nil {
		fail(err)
	}
}

func preflight(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition, objects []*unstructured.Unstructured) (report, error) {
	out := report{Failures: []objectFailure{}, ValidatedVersions: []string{}}
	// validateV1CRDCompatibility: the old CRD's served versions that the new one still serves, with the new schema.
	oldVersionSet := sets.New[string]()
	for _, oldVersion := range oldCRD.Spec.Versions {
		if oldVersion.Served {
			oldVersionSet.Insert(oldVersion.Name)
		}
	}
	var firstError error
	for _, newVersion := range newCRD.Spec.Versions {
		if !oldVersionSet.Has(newVersion.Name) || !newVersion.Served {
			continue
		}
		converted := &apiextensions.CustomResourceValidation{}
		// OLM converts without this guard; a v1 CRD the API server accepted always has a schema.
		if newVersion.Schema != nil {
			if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(newVersion.Schema, converted, nil); err != nil {
				return out, err
			}
		}
		// validateExistingCRs
		validator, _, err := validation.NewSchemaValidator(converted.OpenAPIV3Schema)
		if err != nil {
			return out, fmt.Errorf("error creating validator for schema version %s: %s", newVersion.Name, err)
		}
		out.ValidatedVersions = append(out.ValidatedVersions, newVersion.Name)
		gvr := schema.GroupVersion{Group: newCRD.Spec.Group, Version: newVersion.Name}
		for _, cr := range objects {
			if cr.GroupVersionKind().GroupVersion() != gvr || cr.GetKind() != newCRD.Spec.Names.Kind {
				continue
			}
			out.ObjectsValidated++
			errs := validation.ValidateCustomResource(field.NewPath(""), cr.UnstructuredContent(), validator).ToAggregate()
			if errs == nil {
				continue
			}
			namespacedName := cr.GetName()
			if cr.GetNamespace() != "" {
				namespacedName = fmt.Sprintf("%s/%s", cr.GetNamespace(), cr.GetName())
			}
			failure := fmt.Errorf("error validating %s %q: updated validation is too restrictive: %v", cr.GroupVersionKind(), namespacedName, errs)
			out.Failures = append(out.Failures, objectFailure{Object: namespacedName, Version: newVersion.Name, Error: failure.Error()})
			if firstError == nil {
				firstError = failure
			}
		}
	}
	if firstError != nil {
		// step.go: a validation error blocks the upgrade unless the new CRD converts by webhook.
		if newCRD.Spec.Conversion == nil || newCRD.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
			out.Blocked = true
			out.Message = fmt.Sprintf("error validating existing CRs against new CRD's schema for %q: %v", newCRD.Name, firstError)
			return out, nil
		}
		out.Warning = fmt.Sprintf("Validation of existing CRs against the new CRD's schema failed, but a webhook conversion strategy was specified in the new CRD: %v", firstError)
	}
	// SafeStorageVersionUpgrade
	newSpecVersions := sets.New[string]()
	for _, version := range newCRD.Spec.Versions {
		newSpecVersions.Insert(version.Name)
	}
	for _, stored := range oldCRD.Status.StoredVersions {
		if !newSpecVersions.Has(stored) {
			out.Blocked = true
			out.Message = fmt.Sprintf("risk of data loss updating %q: new CRD removes version %s that is listed as a stored version on the existing CRD", newCRD.Name, stored)
			return out, nil
		}
	}
	return out, nil
}

func readCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("%s: not a CustomResourceDefinition: %w", path, err)
	}
	if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("%s: not an apiextensions.k8s.io/v1 CustomResourceDefinition", path)
	}
	if len(crd.Status.StoredVersions) == 0 {
		for _, version := range crd.Spec.Versions {
			if version.Storage {
				crd.Status.StoredVersions = []string{version.Name}
			}
		}
	}
	return crd, nil
}

func readObjects(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objects []*unstructured.Unstructured
	for {
		content := map[string]interface{}{}
		if err := decoder.Decode(&content); err != nil {
			if errors.Is(err, io.EOF) {
				return objects, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(content) == 0 {
			continue
		}
		object := &unstructured.Unstructured{Object: content}
		if object.IsList() {
			if err := object.EachListItem(func(item runtime.Object) error {
				objects = append(objects, item.(*unstructured.Unstructured))
				return nil
			}); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			continue
		}
		objects = append(objects, object)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "olm-preflight: %v\n", err)
	os.Exit(2)
}
