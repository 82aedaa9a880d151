package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The rules of crdgate's built-in GeoDatabase v1 contract (src/contracts/geodatabase/: schema-v1.ts,
// schema-parts.ts, invariants.ts, versions.ts), written the way a Go webhook states them: one function that
// collects every field error, so the caller can answer all of them at once.

var (
	majorMinor      = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
	majorMinorPatch = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

	minStorage          = resource.MustParse("1Gi")
	minCacheMemory      = resource.MustParse("64Mi")
	maxCacheMemory      = resource.MustParse("64Gi")
	maxTotalCacheMemory = resource.MustParse("64Gi")

	phases          = []string{"Pending", "Provisioning", "Ready", "Scaling", "Resizing", "Upgrading", "Degraded", "Failed"}
	conditionStates = []string{"True", "False", "Unknown"}
)

const (
	minPostgresMajor = 13
	maxPostgresMajor = 17
	maxCaches        = 8
)

// postgisSupport maps a PostGIS MAJOR.MINOR line to the PostgreSQL majors it supports (inclusive).
var postgisSupport = map[string]struct{ min, max int }{
	"3.3": {11, 15},
	"3.4": {12, 16},
	"3.5": {12, 17},
}

func validateGeoDatabase(db *GeoDatabase) field.ErrorList {
	var errs field.ErrorList
	specPath := field.NewPath("spec")
	if db.Spec == nil {
		errs = append(errs, field.Required(specPath, ""))
	} else {
		errs = append(errs, validateSpec(db.Spec, specPath)...)
	}
	if db.Status != nil {
		errs = append(errs, validateStatus(db.Status, field.NewPath("status"))...)
	}
	return errs
}

func validateSpec(spec *GeoDatabaseSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validatePostgres(spec.Postgres, path.Child("postgres"))...)
	if r := spec.ReadReplicas; r != nil && (*r < 0 || *r > 15) {
		errs = append(errs, field.Invalid(path.Child("readReplicas"), *r, "must be between 0 and 15"))
	}
	errs = append(errs, validateStorage(spec.Storage, path.Child("storage"))...)
	errs = append(errs, validateCaches(spec.Caches, path.Child("caches"))...)
	return errs
}

func validatePostgres(postgres *PostgresSpec, path *field.Path) field.ErrorList {
	if postgres == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	versionPath, postgisPath := path.Child("version"), path.Child("postgis")
	major, majorKnown := -1, false
	switch {
	case postgres.Version == nil:
		errs = append(errs, field.Required(versionPath, ""))
	case !majorMinor.MatchString(*postgres.Version):
		errs = append(errs, field.Invalid(versionPath, *postgres.Version, "must be PostgreSQL MAJOR.MINOR"))
	default:
		major, majorKnown = leadingNumber(*postgres.Version), true
		if major < minPostgresMajor || major > maxPostgresMajor {
			errs = append(errs, field.NotSupported(versionPath, *postgres.Version, []string{"13", "14", "15", "16", "17"}))
		}
	}
	switch {
	case postgres.Postgis == nil:
		errs = append(errs, field.Required(postgisPath, ""))
	case !majorMinorPatch.MatchString(*postgres.Postgis):
		errs = append(errs, field.Invalid(postgisPath, *postgres.Postgis, "must be PostGIS MAJOR.MINOR.PATCH"))
	default:
		line := (*postgres.Postgis)[:strings.LastIndex(*postgres.Postgis, ".")]
		support, known := postgisSupport[line]
		if !known {
			errs = append(errs, field.NotSupported(postgisPath, *postgres.Postgis, []string{"3.3", "3.4", "3.5"}))
		} else if majorKnown && (major < support.min || major > support.max) {
			errs = append(errs, field.Invalid(postgisPath, *postgres.Postgis,
				fmt.Sprintf("PostGIS %s does not support PostgreSQL %d (it supports %d to %d)", line, major, support.min, support.max)))
		}
	}
	return errs
}

func validateStorage(storage *StorageSpec, path *field.Path) field.ErrorList {
	if storage == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	sizePath := path.Child("size")
	if storage.Size == nil {
		errs = append(errs, field.Required(sizePath, ""))
	} else if size, err := resource.ParseQuantity(*storage.Size); err != nil {
		errs = append(errs, field.Invalid(sizePath, *storage.Size, "must be a Kubernetes quantity"))
	} else if size.Cmp(minStorage) < 0 {
		errs = append(errs, field.Invalid(sizePath, *storage.Size, "must be at least 1Gi"))
	}
	if name := storage.StorageClassName; name != nil && (len(*name) < 1 || len(*name) > 253) {
		errs = append(errs, field.Invalid(path.Child("storageClassName"), *name, "must be 1 to 253 characters"))
	}
	return errs
}

func validateCaches(caches []CacheSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(caches) > maxCaches {
		errs = append(errs, field.TooMany(path, len(caches), maxCaches))
	}
	seen := make(map[string]bool, len(caches))
	total := resource.Quantity{}
	anyMemory := false
	for i, cache := range caches {
		at := path.Index(i)
		if cache.Name == nil {
			errs = append(errs, field.Required(at.Child("name"), ""))
		} else {
			for _, problem := range validation.IsDNS1123Label(*cache.Name) {
				errs = append(errs, field.Invalid(at.Child("name"), *cache.Name, problem))
			}
			if seen[*cache.Name] {
				errs = append(errs, field.Duplicate(at, *cache.Name))
			}
			seen[*cache.Name] = true
		}
		if cache.Version != nil && !majorMinor.MatchString(*cache.Version) {
			errs = append(errs, field.Invalid(at.Child("version"), *cache.Version, "must be Redis MAJOR.MINOR"))
		}
		if cache.Memory == nil {
			errs = append(errs, field.Required(at.Child("memory"), ""))
		} else if memory, err := resource.ParseQuantity(*cache.Memory); err != nil {
			errs = append(errs, field.Invalid(at.Child("memory"), *cache.Memory, "must be a Kubernetes quantity"))
		} else {
			if memory.Cmp(minCacheMemory) < 0 || memory.Cmp(maxCacheMemory) > 0 {
				errs = append(errs, field.Invalid(at.Child("memory"), *cache.Memory, "must be between 64Mi and 64Gi"))
			}
			total.Add(memory)
			anyMemory = true
		}
		if r := cache.Replicas; r != nil && (*r < 1 || *r > 5) {
			errs = append(errs, field.Invalid(at.Child("replicas"), *r, "must be between 1 and 5"))
		}
	}
	if anyMemory && total.Cmp(maxTotalCacheMemory) > 0 {
		errs = append(errs, field.Invalid(path, total.String(), "the caches' memory adds up to more than 64Gi"))
	}
	return errs
}

func validateStatus(status *GeoDatabaseStatus, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if status.Phase != "" && !contains(phases, status.Phase) {
		errs = append(errs, field.NotSupported(path.Child("phase"), status.Phase, phases))
	}
	if g := status.ObservedGeneration; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(path.Child("observedGeneration"), *g, "must be at least 0"))
	}
	if r := status.ReadyReplicas; r != nil && *r < 0 {
		errs = append(errs, field.Invalid(path.Child("readyReplicas"), *r, "must be at least 0"))
	}
	for i, condition := range status.Conditions {
		at := path.Child("conditions").Index(i)
		if !contains(conditionStates, string(condition.Status)) {
			errs = append(errs, field.NotSupported(at.Child("status"), condition.Status, conditionStates))
		}
		if condition.Reason == "" {
			errs = append(errs, field.Required(at.Child("reason"), ""))
		}
	}
	return errs
}

func leadingNumber(version string) int {
	n, _ := strconv.Atoi(version[:strings.Index(version, ".")])
	return n
}

func contains(values []string, value string) bool {
	for _, candidate := range values {
		if candidate == value {
			return true
		}
	}
	return false
}
