// olm-validate: operator-framework/api's own bundle validators on one registry+v1 bundle directory (manifests/,
// metadata/), for the tests of the bundle `crdgate manifests --format olm` writes.
//
//	olm-validate [-k8s-version v1.36.4] BUNDLE_DIR
//	olm-validate -version      (the operator-framework/api it was built with: proof that it runs)
//
// Prints {"errors": [...], "warnings": [...]} on stdout and exits 0 whenever it ran, whatever it found: what the
// bundle is worth is the report's to say. Exits 2 only when it could not run (no such directory, bad flags).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
)

// The module's validators that apply to a bundle. Left out: OperatorHubValidator (deprecated; OperatorHubV2,
// StandardCapabilities and StandardCategories are its checks, and it always adds a warning that it is deprecated),
// CommunityOperatorValidator (deprecated; OpenShift's catalog labels), MultipleArchitecturesValidator (pulls the
// images with a container tool), PackageManifestValidator and OperatorGroupValidator (objects a bundle has not).
// OperatorHubV2 makes AlphaDeprecatedAPIs' check of removed APIs too, so both report such an API.
var validators = []struct {
	name      string
	validator interfaces.Validator
}{
	// validation.DefaultBundleValidators, one by one so that each finding names its validator.
	{"ClusterServiceVersion", validation.ClusterServiceVersionValidator},
	{"CustomResourceDefinition", validation.CustomResourceDefinitionValidator},
	{"Bundle", validation.BundleValidator},
	{"OperatorHubV2", validation.OperatorHubV2Validator},
	{"StandardCapabilities", validation.StandardCapabilitiesValidator},
	{"StandardCategories", validation.StandardCategoriesValidator},
	{"GoodPractices", validation.GoodPracticesValidator},
	{"AlphaDeprecatedAPIs", validation.AlphaDeprecatedAPIsValidator},
	{"Object", validation.ObjectValidator},
}

type finding struct {
	Validator string `json:"validator"`
	Type      string `json:"type"`
	Field     string `json:"field,omitempty"`
	// Only a string: a bad value can be a whole object.
	Value  string `json:"value,omitempty"`
	Detail string `json:"detail"`
	Object string `json:"object,omitempty"`
}

type report struct {
	Errors   []finding `json:"errors"`
	Warnings []finding `json:"warnings"`
}

func main() {
	k8sVersion := flag.String("k8s-version", "", "the Kubernetes version the bundle is for: removed APIs are then errors, not warnings")
	version := flag.Bool("version", false, "print the operator-framework/api version and exit")
	flag.Parse()
	if *version {
		fmt.Println("github.com/operator-framework/api " + apiVersion())
		return
	}
	if flag.NArg() != 1 {
		fail("usage: olm-validate [-k8s-version vX.Y.Z] BUNDLE_DIR")
	}
	// The loader skips every folder whose name starts with a dot, the one it is given too: "." would be an empty bundle.
	dir, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fail(err.Error())
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		fail(fmt.Sprintf("%s is not a directory", dir))
	}
	if strings.HasPrefix(filepath.Base(dir), ".") {
		fail(fmt.Sprintf("%s: the loader skips a folder whose name starts with a dot", dir))
	}

	out := report{Errors: []finding{}, Warnings: []finding{}}
	// The loader reads the folder the CSV is in as the bundle's objects (a folder in it is an error; a bundle with no
	// CRD is fine) and any file named annotations* for the package and channels. What it cannot read is the bundle's
	// fault, so it is reported, not fatal: it returns a bundle (which then always has a CSV) along with errors about
	// single files, and none when it found no CSV, which includes a CSV that is not valid YAML (it skips those).
	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		for _, detail := range loaderErrors(err) {
			out.Errors = append(out.Errors, finding{Validator: "loader", Type: string(errors.ErrorInvalidBundle), Detail: detail})
		}
	}
	if bundle != nil && bundle.CSV != nil {
		// operator-sdk's way to hand the validators their optional values: a map among the objects.
		objects := append(bundle.ObjectsToValidate(), map[string]string{"k8s-version": *k8sVersion})
		for _, v := range validators {
			for _, result := range v.validator.Validate(objects...) {
				out.Errors = appendFindings(out.Errors, v.name, result.Name, result.Errors)
				out.Warnings = appendFindings(out.Warnings, v.name, result.Name, result.Warnings)
			}
		}
	}

	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(out); err != nil {
		fail(err.Error())
	}
}

func appendFindings(to []finding, validator, object string, errs []errors.Error) []finding {
	for _, e := range errs {
		value, _ := e.BadValue.(string)
		to = append(to, finding{validator, string(e.Type), e.Field, value, e.Detail, object})
	}
	return to
}

// The loader joins its errors into one aggregate; each is a finding of its own.
func loaderErrors(err error) []string {
	if aggregate, ok := err.(interface{ Errors() []error }); ok {
		var details []string
		for _, e := range aggregate.Errors() {
			details = append(details, loaderErrors(e)...)
		}
		return details
	}
	return []string{strings.TrimSpace(err.Error())}
}

func apiVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/operator-framework/api" {
				return dep.Version
			}
		}
	}
	return "(unknown)"
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "olm-validate: "+message)
	os.Exit(2)
}
