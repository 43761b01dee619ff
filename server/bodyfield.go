package server

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// memberOf returns the name of the field of fields whose own object
// (a struct, or a pointer to one) takes the member k, when k belongs one
// level down: "recall" for a search body's "topK". It returns "" when no
// field's object takes k.
func memberOf(fields []jsonField, k string) string {
	for _, f := range fields {
		t := f.typ
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			continue
		}
		for _, g := range structFields(t) {
			if g.name == k {
				return f.name
			}
		}
	}
	return ""
}

// bodyUnknownDetail words a request body's unknown member at path p (err
// from badField) as unknownFieldDetail does, and when no name is close
// says where the name belongs or which names the object takes, as a
// query's unknown parameter is told them:
// `unknown field "topK": it is a member of "recall" ({"recall": {"topK": …}})`,
// `unknown field "without" (the body takes withoutRecalled, withoutTurns, …)`.
func bodyUnknownDetail(p string, err error) string {
	detail := unknownFieldDetail(p, err)
	var ue *unknownFieldError
	if !errors.As(err, &ue) || ue.near != "" {
		return detail
	}
	parent, name := "", p
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		parent, name = p[:i], p[i+1:]
	}
	switch {
	case ue.under != "":
		return fmt.Sprintf(`%s: it is a member of %q ({%q: {%q: …}})`, detail, joinPath(parent, ue.under), ue.under, name)
	case len(ue.names) > 0:
		object := "the body"
		if parent != "" {
			object = fmt.Sprintf("%q", parent)
		}
		return fmt.Sprintf("%s (%s takes %s)", detail, object, jsonkey.AndList(ue.names))
	}
	return detail
}
