package server

// RoutePatterns lists the "METHOD /path" pattern of every route the mux
// serves, for the OpenAPI test.
func RoutePatterns() []string {
	out := make([]string, len(routes))
	for i, rt := range routes {
		out[i] = rt.pattern()
	}
	return out
}
