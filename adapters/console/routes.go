package console

import (
	"net/http"

	"counsel/domain/account"
)

// route is one page action: who may call it and what handles it.
type route struct {
	method string
	path   string
	public bool // no session needed (sign-in)
	// multipart routes read their own body, CSRF token first (uploads
	// stream; the guard does not parse them).
	multipart bool
	perms     []account.Permission // all needed, besides the use case's own check
	off       bool                 // the service the page needs is not wired: no route
	h         func(w http.ResponseWriter, r *http.Request, p *page)
}

// Path variables of the console's addresses.
const (
	id    = "{id:[0-9]+}"
	docID = "{doc:[0-9]+}"
)

// routes is the console's route table: every page and form action, who
// may call it (public: no session; perms: the permissions it needs), and
// its handler. Passkey routes exist only with Services.Passkeys, contract
// routes only with Services.Contracts and Services.Signing.
func (c *console) routes() []route {
	P := func(ps ...account.Permission) []account.Permission { return ps }
	noPasskeys := c.svc.Passkeys == nil
	noContracts := c.svc.Contracts == nil || c.svc.Signing == nil
	return []route{
		{method: "GET", path: "/console", h: c.home},
		{method: "GET", path: "/console/", h: c.home},
		{method: "GET", path: "/console/login", public: true, h: c.loginShow},
		{method: "POST", path: "/console/login", public: true, h: c.loginEmail},
		{method: "POST", path: "/console/login/verify", public: true, h: c.loginVerify},
		{method: "GET", path: "/console/login/idp", public: true, h: c.idpStart},
		{method: "GET", path: "/console/login/idp/callback", public: true, h: c.idpCallback},
		{method: "POST", path: "/console/logout", h: c.logout},

		{method: "GET", path: "/console/confirm", h: c.confirmShow},
		{method: "POST", path: "/console/confirm", h: c.confirmCheck},
		{method: "POST", path: "/console/confirm/code", h: c.confirmCode},

		{method: "GET", path: "/console/account", h: c.accountShow},
		{method: "POST", path: "/console/account/password", h: c.accountPassword},
		{method: "POST", path: "/console/account/totp/enrol", h: c.totpEnrol},
		{method: "POST", path: "/console/account/sessions/{sid:[0-9A-Za-z_-]+}/revoke", h: c.sessionRevoke},
		{method: "POST", path: "/console/account/sessions/revoke-others", h: c.sessionsRevokeOthers},
		{method: "POST", path: "/console/account/totp/confirm", h: c.totpConfirm},
		{method: "POST", path: "/console/account/totp/disable", h: c.totpDisable},
		{method: "POST", path: "/console/account/api-keys", h: c.apiKeyCreate},
		{method: "POST", path: "/console/account/api-keys/" + id + "/revoke", h: c.apiKeyRevoke},

		{method: "GET", path: "/console/users", perms: P(account.UsersView), h: c.usersList},
		{method: "GET", path: "/console/users/new", perms: P(account.UsersCreate), h: c.userNew},
		{method: "POST", path: "/console/users", perms: P(account.UsersCreate), h: c.userCreate},
		{method: "GET", path: "/console/users/" + id, perms: P(account.UsersView), h: c.userShow},
		{method: "POST", path: "/console/users/" + id, perms: P(account.UsersEdit), h: c.userUpdate},
		{method: "POST", path: "/console/users/" + id + "/active", perms: P(account.UsersEdit), h: c.userActive},
		{method: "POST", path: "/console/users/" + id + "/password", perms: P(account.UsersEdit), h: c.userPassword},
		{method: "POST", path: "/console/users/" + id + "/totp", perms: P(account.UsersEdit), h: c.userResetTOTP},
		{method: "GET", path: "/console/users/" + id + "/delete", perms: P(account.UsersDelete), h: c.userDeleteConfirm},
		{method: "POST", path: "/console/users/" + id + "/delete", perms: P(account.UsersDelete), h: c.userDelete},
		{method: "GET", path: "/console/users/" + id + "/pay", h: c.payShow},
		{method: "POST", path: "/console/users/" + id + "/remunerations", perms: P(account.RemunerationsCreate), h: c.remunerationCreate},
		{method: "POST", path: "/console/users/" + id + "/pqe", h: c.pqeCreate},

		{method: "GET", path: "/console/roles", perms: P(account.RolesView), h: c.rolesList},
		{method: "GET", path: "/console/roles/new", perms: P(account.RolesCreate), h: c.roleNew},
		{method: "POST", path: "/console/roles", perms: P(account.RolesCreate), h: c.roleCreate},
		{method: "GET", path: "/console/roles/" + id, perms: P(account.RolesView), h: c.roleShow},
		{method: "POST", path: "/console/roles/" + id, perms: P(account.RolesEdit), h: c.roleUpdate},
		{method: "GET", path: "/console/roles/" + id + "/delete", perms: P(account.RolesDelete), h: c.roleDeleteConfirm},
		{method: "POST", path: "/console/roles/" + id + "/delete", perms: P(account.RolesDelete), h: c.roleDelete},

		{method: "GET", path: "/console/offices", h: c.officesList},
		{method: "GET", path: "/console/offices/new", perms: P(account.OfficesEdit), h: c.officeNew},
		{method: "POST", path: "/console/offices", perms: P(account.OfficesEdit), h: c.officeCreate},
		{method: "GET", path: "/console/offices/" + id, h: c.officeShow},
		{method: "POST", path: "/console/offices/" + id, perms: P(account.OfficesEdit), h: c.officeUpdate},

		{method: "GET", path: "/console/backups", h: c.backupsList},
		{method: "GET", path: "/console/mail", h: c.mailList},
		{method: "GET", path: "/console/mail/" + id, h: c.mailShow},
		{method: "GET", path: "/console/audit", perms: P(account.AuditView), h: c.auditList},
		{method: "GET", path: "/console/webhooks", perms: P(account.WebhooksManage), h: c.webhooksList},
		{method: "POST", path: "/console/webhooks", perms: P(account.WebhooksManage), h: c.webhookCreate},
		{method: "GET", path: "/console/webhooks/" + id, perms: P(account.WebhooksManage), h: c.webhookShow},
		{method: "POST", path: "/console/webhooks/" + id + "/test", perms: P(account.WebhooksManage), h: c.webhookTest},
		{method: "POST", path: "/console/webhooks/" + id + "/deliveries/{did:[0-9]+}/retry", perms: P(account.WebhooksManage), h: c.webhookRetry},

		// passkeys (docs/decisions.md §20)
		{method: "POST", path: "/console/login/passkey/begin", public: true, off: noPasskeys, h: c.passkeyLoginBegin},
		{method: "POST", path: "/console/login/passkey", public: true, off: noPasskeys, h: c.passkeyLogin},
		{method: "POST", path: "/console/account/passkeys/begin", off: noPasskeys, h: c.passkeyRegisterBegin},
		{method: "POST", path: "/console/account/passkeys", off: noPasskeys, h: c.passkeyRegister},
		{method: "POST", path: "/console/account/passkeys/" + id, off: noPasskeys, h: c.passkeyRename},
		{method: "POST", path: "/console/account/passkeys/" + id + "/delete", off: noPasskeys, h: c.passkeyRemove},
		{method: "POST", path: "/console/confirm/passkey/begin", off: noPasskeys, h: c.passkeyLoginBegin},
		{method: "POST", path: "/console/confirm/passkey", off: noPasskeys, h: c.passkeyConfirm},
		{method: "POST", path: "/console/users/" + id + "/passkeys", perms: P(account.UsersEdit), off: noPasskeys, h: c.userRemovePasskeys},

		// contracts, their documents and signing
		{method: "GET", path: "/console/contracts", perms: P(account.ContractView), off: noContracts, h: c.contractsList},
		{method: "POST", path: "/console/contracts/status", perms: P(account.ContractEdit), off: noContracts, h: c.contractsBulkStatus},
		{method: "GET", path: "/console/contracts/new", perms: P(account.ContractCreate), off: noContracts, h: c.contractNew},
		{method: "POST", path: "/console/contracts", perms: P(account.ContractCreate), off: noContracts, h: c.contractCreate},
		{method: "GET", path: "/console/contracts/" + id, perms: P(account.ContractView), off: noContracts, h: c.contractShow},
		{method: "POST", path: "/console/contracts/" + id, perms: P(account.ContractEdit), off: noContracts, h: c.contractUpdate},
		{method: "POST", path: "/console/contracts/" + id + "/status", perms: P(account.ContractEdit), off: noContracts, h: c.contractStatus},
		{method: "GET", path: "/console/contracts/" + id + "/delete", perms: P(account.ContractDelete), off: noContracts, h: c.contractDeleteConfirm},
		{method: "POST", path: "/console/contracts/" + id + "/delete", perms: P(account.ContractDelete), off: noContracts, h: c.contractDelete},
		{method: "POST", path: "/console/contracts/" + id + "/documents", perms: P(account.ContractEdit), multipart: true, off: noContracts, h: c.documentUpload},
		{method: "GET", path: "/console/contracts/" + id + "/documents/" + docID, perms: P(account.ContractView), off: noContracts, h: c.documentDownload},
		{method: "POST", path: "/console/contracts/" + id + "/documents/" + docID + "/delete", perms: P(account.ContractEdit), off: noContracts, h: c.documentDelete},
		{method: "GET", path: "/console/contracts/" + id + "/signing", perms: P(account.ContractView), off: noContracts, h: c.signingShow},
		{method: "POST", path: "/console/contracts/" + id + "/signing", perms: P(account.ContractEdit), off: noContracts, h: c.signingSubmit},
	}
}
