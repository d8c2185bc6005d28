package http

import (
	"net/http"

	"counsel/domain/account"
)

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

// routeTable lists every route the server has, in one place: method,
// path, who may call it, its limits and handler, and its API reference
// entry (op*, beside the handlers). The OpenAPI document is built from it,
// and a test checks that the router and the document agree. A module
// route (module: true) answers 501 while its service is not wired.
func (s *server) routeTable() []route {
	var (
		apiKeys  = s.needs(s.svc.APIKeys != nil, "API keys are")
		audit    = s.needs(s.svc.Audit != nil, "security events are")
		calendar = s.needs(s.svc.Calendar != nil, "calendar feeds are")
		webhooks = s.needs(s.svc.Webhooks != nil, "webhooks are")
	)
	return []route{
		// system
		{method: "GET", path: "/healthz", access: public, handler: s.handleHealth(), op: opHealth},
		{method: "GET", path: "/readyz", access: public, handler: s.handleReady(), op: opReady},
		{method: "GET", path: "/.well-known/jwks.json", access: public, handler: s.handleJWKS(), op: opJWKS},
		{method: "GET", path: "/openapi.json", access: public, handler: s.handleOpenAPI(), op: opOpenAPI},
		// sign-in and the session
		{method: "POST", path: "/api/account/login/get-otp", access: public, limited: true, handler: s.handleGetOTP(), op: opGetOTP},
		{method: "POST", path: "/api/account/login", access: public, limited: true, handler: s.handleLogin(), op: opLogin},
		{method: "POST", path: "/api/account/login/idp", access: public, limited: true, handler: s.handleLoginIdP(), op: opLoginIdP},
		{method: "POST", path: "/api/account/refresh-token", access: public, limited: true, handler: s.handleRefresh(), op: opRefresh},
		{method: "POST", path: "/api/account/logout", access: ownAccount, handler: s.handleLogout(), op: opLogout},
		{method: "POST", path: "/api/account/reauthenticate", access: ownAccount, limited: true, module: true, handler: s.need(s.svc.Reauth != nil, "re-authentication is", s.handleReauthenticate()), op: opReauthenticate},
		// authenticator app
		{method: "GET", path: "/api/account/totp", access: authorized, module: true, handler: s.needTOTP(s.handleTOTPStatus()), op: opTOTPStatus},
		{method: "POST", path: "/api/account/totp/enroll", access: ownAccount, module: true, handler: s.needTOTP(s.handleEnrollTOTP()), op: opEnrollTOTP},
		{method: "POST", path: "/api/account/totp/confirm", access: ownAccount, module: true, handler: s.needTOTP(s.handleConfirmTOTP()), op: opConfirmTOTP},
		{method: "DELETE", path: "/api/account/totp", access: ownAccount, module: true, handler: s.needTOTP(s.handleDisableTOTP()), op: opDisableTOTP},
		// API keys
		{method: "POST", path: "/api/account/api-keys", access: ownAccount, module: true, handler: apiKeys(s.handleCreateAPIKey()), op: opCreateAPIKey},
		{method: "GET", path: "/api/account/api-keys", access: authorized, module: true, handler: apiKeys(s.handleMyAPIKeys()), op: opMyAPIKeys},
		{method: "DELETE", path: "/api/account/api-keys/{id:[0-9]+}", access: ownAccount, module: true, handler: apiKeys(s.handleRevokeMyAPIKey()), op: opRevokeMyAPIKey},
		{method: "GET", path: "/api/users/{id:[0-9]+}/api-keys", access: perm(account.UsersEdit), module: true, handler: apiKeys(s.handleUserAPIKeys()), op: opUserAPIKeys},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}/api-keys/{keyId:[0-9]+}", access: perm(account.UsersEdit), module: true, handler: apiKeys(s.handleRevokeUserAPIKey()), op: opRevokeUserAPIKey},
		// sessions
		{method: "GET", path: "/api/account/sessions", access: authorized, handler: s.handleMySessions(), op: opMySessions},
		{method: "DELETE", path: "/api/account/sessions/" + sessionIDPath, access: ownAccount, handler: s.handleRevokeMySession(), op: opRevokeMySession},
		{method: "POST", path: "/api/account/sessions/revoke-others", access: ownAccount, handler: s.handleRevokeOtherSessions(), op: opRevokeOtherSessions},
		{method: "GET", path: "/api/users/{id:[0-9]+}/sessions", access: perm(account.UsersEdit), handler: s.handleUserSessions(), op: opUserSessions},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}/sessions", access: perm(account.UsersEdit), handler: s.handleRevokeUserSessions(), op: opRevokeUserSessions},
		// passkeys
		{method: "POST", path: "/api/account/passkeys/register/begin", access: ownAccount, module: true, handler: s.needPasskeys(s.handleBeginPasskeyRegistration()), op: opBeginPasskeyRegistration},
		{method: "POST", path: "/api/account/passkeys/register/finish", access: ownAccount, module: true, handler: s.needPasskeys(s.handleFinishPasskeyRegistration()), op: opFinishPasskeyRegistration},
		{method: "GET", path: "/api/account/passkeys", access: authorized, module: true, handler: s.needPasskeys(s.handlePasskeys()), op: opPasskeys},
		{method: "PUT", path: "/api/account/passkeys/{id:[0-9]+}", access: ownAccount, module: true, handler: s.needPasskeys(s.handleRenamePasskey()), op: opRenamePasskey},
		{method: "DELETE", path: "/api/account/passkeys/{id:[0-9]+}", access: ownAccount, module: true, handler: s.needPasskeys(s.handleRemovePasskey()), op: opRemovePasskey},
		{method: "POST", path: "/api/account/login/passkey/begin", access: public, limited: true, module: true, handler: s.needPasskeys(s.handleBeginPasskeyLogin()), op: opBeginPasskeyLogin},
		{method: "POST", path: "/api/account/login/passkey/finish", access: public, limited: true, module: true, handler: s.needPasskeys(s.handlePasskeyLogin()), op: opPasskeyLogin},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}/passkeys", access: perm(account.UsersEdit), module: true, handler: s.handleRemoveUserPasskeys(), op: opRemoveUserPasskeys},
		// roles and permissions
		{method: "GET", path: "/api/permissions", access: perm(account.PermissionsView), handler: s.handlePermissions(), op: opPermissions},
		{method: "GET", path: "/api/permissions/me", access: authorized, handler: s.handleMyPermissions(), op: opMyPermissions},
		{method: "GET", path: "/api/roles", access: perm(account.RolesView), handler: s.handleRoles(), op: opRoles},
		{method: "POST", path: "/api/roles", access: perm(account.RolesCreate), handler: s.handleCreateRole(), op: opCreateRole},
		{method: "GET", path: "/api/roles/{id:[0-9]+}", access: perm(account.RolesView), handler: s.handleRole(), op: opRole},
		{method: "PUT", path: "/api/roles/{id:[0-9]+}", access: perm(account.RolesEdit), handler: s.handleUpdateRole(), op: opUpdateRole},
		{method: "DELETE", path: "/api/roles/{id:[0-9]+}", access: perm(account.RolesDelete), handler: s.handleDeleteRole(), op: opDeleteRole},
		{method: "GET", path: "/api/roles/{id:[0-9]+}/permissions", access: perm(account.RolesView), handler: s.handleRolePermissions(), op: opRolePermissions},
		{method: "POST", path: "/api/roles/{id:[0-9]+}/permissions", access: perm(account.RolesEdit), handler: s.handleSetRolePermissions(), op: opSetRolePermissions},
		{method: "GET", path: "/api/users/{id:[0-9]+}/roles", access: perm(account.UsersView), handler: s.handleUserRoles(), op: opUserRoles},
		{method: "POST", path: "/api/users/{id:[0-9]+}/roles/{roleId:[0-9]+}", access: perm(account.UsersEdit), handler: s.handleAddUserRole(), op: opAddUserRole},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}/roles/{roleId:[0-9]+}", access: perm(account.UsersEdit), handler: s.handleRemoveUserRole(), op: opRemoveUserRole},
		// HTML pages: handlers from adapters/pages (Services.Pages)
		{method: "GET", path: "/docs", access: public, handler: s.page("GET /docs"), op: opDocs},
		{method: "GET", path: "/verify", access: public, module: true, handler: s.needEvidence(s.page("GET /verify")), op: opVerifyPage},
		{method: "POST", path: "/verify", access: public, limited: true, maxBody: uploadBodyLimit, module: true, handler: s.needEvidence(s.page("POST /verify")), op: opVerifyPagePost},
		{method: "GET", path: signSlug, access: public, handler: s.page("GET " + signSlug), op: opSignPage},
		{method: "POST", path: signSlug + "/sign", access: public, maxBody: signPageMaxBody, handler: s.page("POST " + signSlug + "/sign"), op: opSignSubmit},
		{method: "POST", path: signSlug + "/decline", access: public, maxBody: signPageMaxBody, handler: s.page("POST " + signSlug + "/decline"), op: opSignDecline},
		{method: "GET", path: signSlug + "/documents/{docId:[A-Za-z0-9_-]+}", access: public, handler: s.page("GET " + signSlug + "/documents/{docId:[A-Za-z0-9_-]+}"), op: opSignDocument},
		// users
		{method: "GET", path: "/api/me", access: authorized, handler: s.handleMe(), op: opMe},
		{method: "GET", path: "/api/me/formatted", access: authorized, handler: s.handleMeFormatted(), op: opMeFormatted},
		{method: "GET", path: "/api/users", access: authorized, handler: s.handleUsers(false), op: opUsers},
		{method: "GET", path: "/api/users/reviewers", access: authorized, handler: s.handleUsers(true), op: opReviewers},
		{method: "GET", path: "/api/users/{id:[0-9]+}", access: authorized, handler: s.handleUser(), op: opUser},
		{method: "POST", path: "/api/users", access: perm(account.UsersCreate), handler: s.handleCreateUser(), op: opCreateUser},
		{method: "PUT", path: "/api/users/{id:[0-9]+}", access: perm(account.UsersEdit), handler: s.handleUpdateUser(), op: opUpdateUser},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}", access: perm(account.UsersDelete), handler: s.handleDeleteUser(), op: opDeleteUser},
		{method: "POST", path: "/api/users/changepassword", access: authorized, handler: s.handleChangePassword(), op: opChangePassword},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}/totp", access: perm(account.UsersEdit), handler: s.handleResetTOTP(), op: opResetTOTP},
		{method: "PUT", path: "/api/offerings/{id:[0-9]+}/reviewers/add", access: perm(account.OfferingsEdit), handler: s.handleReviewers(true), op: opAdd},
		{method: "PUT", path: "/api/offerings/{id:[0-9]+}/reviewers/remove", access: perm(account.OfferingsEdit), handler: s.handleReviewers(false), op: opRemove},
		// offices
		{method: "GET", path: "/api/offices", access: authorized, handler: s.handleOffices(), op: opOffices},
		{method: "GET", path: "/api/offices/{id:[0-9]+}", access: authorized, handler: s.handleOffice(), op: opOffice},
		{method: "POST", path: "/api/offices", access: perm(account.OfficesEdit), handler: s.handleCreateOffice(), op: opCreateOffice},
		{method: "PUT", path: "/api/offices/{id:[0-9]+}", access: perm(account.OfficesEdit), handler: s.handleUpdateOffice(), op: opUpdateOffice},
		// remunerations
		{method: "GET", path: "/api/users/remunerations", access: authorized, handler: s.handleRemunerations(), op: opRemunerations},
		{method: "GET", path: "/api/users/remunerations/{id:[0-9]+}", access: authorized, handler: s.handleRemuneration(), op: opRemuneration},
		{method: "GET", path: "/api/users/remunerations/staff/{id:[0-9]+}", access: authorized, handler: s.handleLatestRemuneration(), op: opLatestRemuneration},
		{method: "POST", path: "/api/users/remuneration", access: perm(account.RemunerationsCreate), handler: s.handleCreateRemuneration(), op: opCreateRemuneration},
		{method: "GET", path: "/api/users/pqeadjustments/{id:[0-9]+}", access: authorized, handler: s.handlePQEAdjustments(), op: opPQEAdjustments},
		{method: "POST", path: "/api/users/pqeadjustments", access: authorized, handler: s.handleCreatePQEAdjustment(), op: opCreatePQEAdjustment},
		// contracts and their documents
		{method: "GET", path: "/api/contracts", access: perm(account.ContractView), module: true, handler: s.needContracts(s.handleContracts()), op: opContracts},
		{method: "POST", path: "/api/contracts", access: perm(account.ContractCreate), module: true, handler: s.needContracts(s.handleCreateContract()), op: opCreateContract},
		{method: "POST", path: "/api/contracts/changeStatus", access: perm(account.ContractEdit), module: true, handler: s.needContracts(s.handleChangeStatuses()), op: opChangeStatuses},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}", access: perm(account.ContractView), module: true, handler: s.needContracts(s.handleContract()), op: opContract},
		{method: "PUT", path: "/api/contracts/{id:[0-9]+}", access: perm(account.ContractEdit), module: true, handler: s.needContracts(s.handleUpdateContract()), op: opUpdateContract},
		{method: "DELETE", path: "/api/contracts/{id:[0-9]+}", access: perm(account.ContractDelete), module: true, handler: s.needContracts(s.handleDeleteContract()), op: opDeleteContract},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/history", access: perm(account.ContractView), module: true, handler: s.needContracts(s.handleContractHistory()), op: opContractHistory},
		{method: "POST", path: "/api/contracts/{id:[0-9]+}/documents", access: perm(account.ContractEdit), maxBody: uploadBodyLimit, module: true, handler: s.needContracts(s.handleAddDocument()), op: opAddDocument},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/documents", access: perm(account.ContractView), module: true, handler: s.needContracts(s.handleDocuments()), op: opDocuments},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/documents/{docId:[0-9]+}/content", access: perm(account.ContractView), module: true, handler: s.needContracts(s.handleDocumentContent()), op: opDocumentContent},
		{method: "DELETE", path: "/api/contracts/{id:[0-9]+}/documents/{docId:[0-9]+}", access: perm(account.ContractEdit), module: true, handler: s.needContracts(s.handleRemoveDocument()), op: opRemoveDocument},
		// signing
		{method: "POST", path: "/api/contracts/signing/{id:[0-9]+}/submitForSigning", access: perm(account.ContractEdit), module: true, handler: s.needSigning(s.handleSubmitForSigning()), op: opSubmitForSigning},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/template", access: perm(account.ContractView), module: true, handler: s.needSigning(s.handleSigningTemplate()), op: opSigningTemplate},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/submissions", access: perm(account.ContractView), module: true, handler: s.needSigning(s.handleSigningSubmissions()), op: opSigningSubmissions},
		{method: "POST", path: "/api/contracts/{id:[0-9]+}/submission/create", access: perm(account.ContractEdit), module: true, handler: s.needSigning(s.handleCreateSubmissions()), op: opCreateSubmissions},
		{method: "POST", path: "/api/contracts/{id:[0-9]+}/submissions/{submissionId:[0-9]+}/remind", access: perm(account.ContractEdit), module: true, handler: s.needSigning(s.handleRemindSigners()), op: opRemindSigners},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/signing/builder-token", access: perm(account.ContractEdit), module: true, handler: s.needSigning(s.handleBuilderToken()), op: opBuilderToken},
		{method: "POST", path: "/api/signing/webhook", access: public, maxBody: webhookMaxBody, module: true, handler: s.needSigning(s.handleSigningWebhook()), op: opSigningWebhook},
		// signed evidence
		{method: "GET", path: "/.well-known/counsel-signing.pem", access: public, module: true, handler: s.needEvidence(s.handleSigningCertificate()), op: opSigningCertificate},
		{method: "POST", path: "/api/signing/verify", access: public, limited: true, maxBody: uploadBodyLimit, module: true, handler: s.needEvidence(s.handleVerify()), op: opVerify},
		// scheduled backups
		{method: "GET", path: "/api/system/backups", access: authorized, module: true, handler: s.need(s.svc.Backups != nil, "scheduled backups are", s.handleBackups()), op: opBackups},
		// calendar feeds
		{method: "POST", path: "/api/account/calendar", access: authorized, module: true, handler: calendar(s.handleCreateCalendar()), op: opCreateCalendar},
		{method: "DELETE", path: "/api/account/calendar", access: authorized, module: true, handler: calendar(s.handleRemoveCalendar()), op: opRemoveCalendar},
		{method: "GET", path: "/calendar/{token:[A-Za-z0-9_-]+}.ics", access: public, module: true, handler: calendar(s.handleCalendarFeed()), op: opCalendarFeed},
		// mail outbox
		{method: "GET", path: "/api/system/mail", access: authorized, module: true, handler: s.need(s.svc.Mail != nil, "the mail outbox is", s.handleMails()), op: opMails},
		// webhooks
		{method: "POST", path: "/api/webhooks", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleCreateWebhook()), op: opCreateWebhook},
		{method: "GET", path: "/api/webhooks", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleWebhooks()), op: opWebhooks},
		{method: "GET", path: "/api/webhooks/{id:[0-9]+}", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleWebhook()), op: opWebhook},
		{method: "PUT", path: "/api/webhooks/{id:[0-9]+}", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleUpdateWebhook()), op: opUpdateWebhook},
		{method: "DELETE", path: "/api/webhooks/{id:[0-9]+}", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleDeleteWebhook()), op: opDeleteWebhook},
		{method: "POST", path: "/api/webhooks/{id:[0-9]+}/rotate-secret", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleRotateWebhookSecret()), op: opRotateWebhookSecret},
		{method: "POST", path: "/api/webhooks/{id:[0-9]+}/test", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleTestWebhook()), op: opTestWebhook},
		{method: "GET", path: "/api/webhooks/{id:[0-9]+}/deliveries", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleWebhookDeliveries()), op: opWebhookDeliveries},
		{method: "POST", path: "/api/webhooks/{id:[0-9]+}/deliveries/{deliveryId:[0-9]+}/retry", access: perm(account.WebhooksManage), module: true, handler: webhooks(s.handleRetryWebhookDelivery()), op: opRetryWebhookDelivery},
		// security events
		{method: "GET", path: "/api/audit/events", access: perm(account.AuditView), module: true, handler: audit(s.handleAuditEvents()), op: opAuditEvents},
		{method: "GET", path: "/api/audit/events/export", access: perm(account.AuditView), module: true, handler: audit(s.handleAuditExport()), op: opAuditExport},
	}
}

// needs is need for the routes of one module.
func (s *server) needs(available bool, what string) func(http.HandlerFunc) http.Handler {
	return func(h http.HandlerFunc) http.Handler { return s.need(available, what, h) }
}
