package http

import (
	"net/http"

	"counsel/domain"
	"counsel/domain/account"
)

// API keys (docs/decisions.md §17): the caller's own, and other users'
// for UsersEdit holders. Creating and revoking one's own are account
// changes (ownAccount: a request made with a key is refused). These are
// the API reference entries of their routes (routes.go).
var (
	opCreateAPIKey = op{summary: "Create an API key for machine clients; the key is in this answer only (permissions must be yours: 403 naming the missing ones; expiresAt at most one year ahead; 403 reauthentication-required without recent authentication; 409 beyond 100 keys)",
		tag: "account", body: ref("ApiKeyInput"), ok: 201, resp: ref("ApiKeyCreatedDto"), headers: []string{"Cache-Control"}, errs: []int{400, 403, 409}}
	opMyAPIKeys        = op{summary: "Your API keys that are not revoked (expired ones included), newest first, without the keys themselves", tag: "account", resp: ref("ApiKeyListDto")}
	opRevokeMyAPIKey   = op{summary: "Revoke one of your API keys: it is refused at once on every instance", tag: "account", ok: 204, errs: []int{404}}
	opUserAPIKeys      = op{summary: "A user's API keys that are not revoked (only a system administrator may see another system administrator's)", tag: "users", resp: ref("ApiKeyListDto"), errs: []int{403, 404}}
	opRevokeUserAPIKey = op{summary: "Revoke a user's API key (only a system administrator may revoke another system administrator's)", tag: "users", ok: 204, errs: []int{403, 404}}
)

type apiKeyIn struct {
	Name        string   `json:"name" required:"true" doc:"1 to 100 characters, to recognise the key by"`
	Permissions []string `json:"permissions" doc:"permission names, each one you hold; none: the key reaches only routes any signed-in user may call"`
	ExpiresAt   dateIn   `json:"expiresAt" doc:"optional; in the future and at most one year ahead; absent or null: the key does not expire"`
}

type apiKeyDTO struct {
	ID          int64    `json:"id"`
	Name        string   `json:"name"`
	Permissions []string `json:"permissions" doc:"what the key may do, within its creator's current permissions"`
	Prefix      string   `json:"prefix" doc:"the key's first characters (cnsl_ and five more), to recognise it"`
	CreatedAt   Time     `json:"createdAt"`
	ExpiresAt   *Time    `json:"expiresAt"`
	LastUsedAt  *Time    `json:"lastUsedAt" doc:"recorded at most once a minute"`
}

type apiKeyCreatedDTO struct {
	apiKeyDTO
	Key string `json:"key" doc:"cnsl_ and 256 random bits in base64url; send it as Authorization: Bearer <key>. Shown only now: only a hash is kept"`
}

type apiKeyListDTO struct {
	Items []apiKeyDTO `json:"items" doc:"newest first (at most 100; not paged)"`
}

func toAPIKey(k account.APIKey) apiKeyDTO {
	return apiKeyDTO{ID: k.ID, Name: k.Name, Permissions: k.Permissions.Names(), Prefix: k.Prefix,
		CreatedAt: Time(k.CreatedAt), ExpiresAt: timePtr(k.ExpiresAt), LastUsedAt: timePtr(k.LastUsedAt)}
}

func toAPIKeyList(ks []account.APIKey) apiKeyListDTO {
	items := make([]apiKeyDTO, len(ks))
	for i, k := range ks {
		items[i] = toAPIKey(k)
	}
	return apiKeyListDTO{Items: items}
}

func (s *server) handleCreateAPIKey() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in apiKeyIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		f := domain.FieldErrors{}
		expires := in.ExpiresAt.optional("expiresAt", f)
		if err := invalid(f); err != nil {
			s.fail(w, r, err)
			return
		}
		if expires != nil && expires.IsZero() { // null: no expiry
			expires = nil
		}
		k, key, err := s.svc.APIKeys.CreateAPIKey(r.Context(), account.NewAPIKey{Name: in.Name, Permissions: in.Permissions, ExpiresAt: expires})
		if err != nil {
			s.fail(w, r, detailed(err))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Location", "/api/account/api-keys/"+itoa(k.ID))
		encode(w, http.StatusCreated, apiKeyCreatedDTO{apiKeyDTO: toAPIKey(k), Key: key})
	}
}

func (s *server) handleMyAPIKeys() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ks, err := s.svc.APIKeys.MyAPIKeys(r.Context())
		s.reply(w, r, http.StatusOK, toAPIKeyList(ks), err)
	}
}

func (s *server) handleRevokeMyAPIKey() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.APIKeys.RevokeMyAPIKey(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleUserAPIKeys() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		ks, err := s.svc.APIKeys.UserAPIKeys(r.Context(), id)
		s.reply(w, r, http.StatusOK, toAPIKeyList(ks), err)
	}
}

func (s *server) handleRevokeUserAPIKey() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, keyID, err := pathIDs(r, "id", "keyId")
		if err == nil {
			err = s.svc.APIKeys.RevokeUserAPIKey(r.Context(), id, keyID)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}
