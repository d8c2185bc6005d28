package http

import "net/http"

// route is one entry of the route table: what it matches, who may call it,
// what handles it, and its API reference entry.
type route struct {
	method  string
	path    string // gorilla template; {id:[0-9]+} shows as {id} in the reference
	access  access
	limited bool  // the per-address limit of public sign-in routes applies
	maxBody int64 // 0: Options.MaxBody
	module  bool  // the module may be left unwired: the route then answers 501
	handler http.Handler
	op      op
}

// routeTable lists every route the server has. The OpenAPI document is
// built from it, and a test checks that the router and the document agree.
func (s *server) routeTable() []route {
	var rs []route
	rs = append(rs, s.systemRoutes()...)
	rs = append(rs, s.accountRoutes()...)
	rs = append(rs, s.totpRoutes()...)
	rs = append(rs, s.apiKeyRoutes()...)
	rs = append(rs, s.sessionRoutes()...)
	rs = append(rs, s.passkeyRoutes()...)
	rs = append(rs, s.roleRoutes()...)
	rs = append(rs, s.pageRoutes()...)
	rs = append(rs, s.userRoutes()...)
	rs = append(rs, s.officeRoutes()...)
	rs = append(rs, s.remunerationRoutes()...)
	rs = append(rs, s.contractRoutes()...)
	rs = append(rs, s.signingRoutes()...)
	rs = append(rs, s.evidenceRoutes()...)
	rs = append(rs, s.backupRoutes()...)
	rs = append(rs, s.calendarRoutes()...)
	rs = append(rs, s.mailRoutes()...)
	rs = append(rs, s.webhookRoutes()...)
	rs = append(rs, s.auditRoutes()...)
	return rs
}

// optionalModule marks routes whose module may be left unwired (need).
func optionalModule(rs []route) []route {
	for i := range rs {
		rs[i].module = true
	}
	return rs
}
