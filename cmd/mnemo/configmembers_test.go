package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestConfigMembersListed: mnemo serve --help's --config lists every
// member of the configuration file (walk29: "lifecycle", where the store
// quota goes, was missing).
func TestConfigMembersListed(t *testing.T) {
	listed := map[string]bool{}
	for _, m := range strings.Split(configMembers, ", ") {
		listed[m] = true
	}
	ty := reflect.TypeFor[memoryConfig]()
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if !listed[name] {
			t.Errorf("--config's help does not list %q", name)
		}
		delete(listed, name)
	}
	for m := range listed {
		t.Errorf("--config's help lists %q, which the file has not", m)
	}
}
