package http

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"counsel/domain/account"
	"counsel/domain/contract"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
)

// The reference's component schemas are generated from the Go types the
// handlers encode and decode (kin-openapi's openapi3gen), so the field
// lists exist once, in the struct tags. Hints the types cannot carry are
// struct tags too:
//
//	doc:"..."       the field's description
//	enum:"a,b"      the values a string may take
//	ref:"Name"      the field is the named schema (an enumeration)
//	required:"true" an input field the server requires
//
// Every field of an output type is required (always written); an input
// type (its Go name ends in In) requires only what its tags say. Pointer
// and Opt fields are nullable.

// component is a named schema and the Go type it is generated from.
type component struct {
	name    string
	typ     reflect.Type
	require []string // when set, the required fields instead of the tags'
}

// components lists the named schemas generated from Go types.
func components() []component {
	c := func(name string, t reflect.Type, require ...string) component { return component{name, t, require} }
	return []component{
		c("ProblemDto", typeOf[problem]()),
		c("OtpInput", typeOf[otpIn]()),
		c("OtpResultDto", typeOf[otpResult]()),
		c("LoginInput", typeOf[loginIn]()),
		c("IdpLoginInput", typeOf[idpLoginIn]()),
		c("RefreshInput", typeOf[refreshIn]()),
		c("LogoutInput", typeOf[logoutIn]()),
		c("TokenResultDto", typeOf[tokenResult]()),
		c("TotpStatusDto", typeOf[totpStatusDTO]()),
		c("TotpEnrolmentDto", typeOf[totpEnrolmentDTO]()),
		c("TotpConfirmInput", typeOf[totpConfirmIn]()),
		c("TotpRecoveryCodesDto", typeOf[totpRecoveryCodesDTO]()),
		c("TotpDisableInput", typeOf[totpDisableIn]()),
		c("ApiKeyInput", typeOf[apiKeyIn]()),
		c("ApiKeyDto", typeOf[apiKeyDTO]()),
		c("ApiKeyCreatedDto", typeOf[apiKeyCreatedDTO]()),
		c("ApiKeyListDto", typeOf[apiKeyListDTO]()),
		c("AuditEventDto", typeOf[auditEventDTO]()),
		c("AuditEventPageDto", typeOf[page[auditEventDTO]]()),
		c("SessionDto", typeOf[sessionDTO]()),
		c("SessionListDto", typeOf[sessionListDTO]()),
		c("RoleDto", typeOf[roleDTO]()),
		c("RoleInput", typeOf[roleIn]()),
		c("AddressDto", typeOf[addressDTO]()),
		c("AddressInput", typeOf[addressIn]()),
		c("OfficeDto", typeOf[officeDTO]()),
		c("OfficeInput", typeOf[officeIn]()),
		c("FormattedUserDto", typeOf[formattedUserDTO]()),
		c("FormattedUserPageDto", typeOf[page[formattedUserDTO]]()),
		c("UserDto", typeOf[userDTO]()),
		c("UpdateUserInput", typeOf[userIn]()),
		c("CreateUserInput", typeOf[userIn](), "email", "firstName"),
		c("CurrentUserDto", typeOf[currentUserDTO]()),
		c("ChangePasswordInput", typeOf[changePasswordIn]()),
		c("ReviewersInput", typeOf[reviewersIn]()),
		c("OfferingReviewersDto", typeOf[offeringReviewersDTO]()),
		c("StaffDto", typeOf[staffDTO]()),
		c("RemunerationDto", typeOf[remunerationDTO]()),
		c("RemunerationPageDto", typeOf[page[remunerationDTO]]()),
		c("RemunerationInput", typeOf[remunerationIn]()),
		c("PqeAdjustmentDto", typeOf[pqeAdjustmentDTO]()),
		c("PqeAdjustmentPageDto", typeOf[page[pqeAdjustmentDTO]]()),
		c("PqeAdjustmentInput", typeOf[pqeAdjustmentIn]()),
		c("ContractDto", typeOf[contractDTO]()),
		c("ContractListDto", typeOf[contractListDTO]()),
		c("ContractListPageDto", typeOf[page[contractListDTO]]()),
		c("CreateContractInput", typeOf[contractIn](), "contractName"),
		c("UpdateContractInput", typeOf[contractIn]()),
		c("ContractStatusChangeInput", typeOf[statusChangeIn]()),
		c("ContractStatusResultsDto", typeOf[statusResultsDTO]()),
		c("ContractHistoryEntryDto", typeOf[historyDTO]()),
		c("ContractHistoryEntryPageDto", typeOf[page[historyDTO]]()),
		c("MailPageDto", typeOf[page[mailDTO]]()),
		c("WebhookInput", typeOf[webhookIn]()),
		c("WebhookDto", typeOf[webhookDTO]()),
		c("WebhookCreatedDto", typeOf[webhookCreatedDTO]()),
		c("WebhookListDto", typeOf[webhookListDTO]()),
		c("WebhookDeliveryDto", typeOf[webhookDeliveryDTO]()),
		c("WebhookDeliveryPageDto", typeOf[page[webhookDeliveryDTO]]()),
		c("ContractDocumentDto", typeOf[documentDTO]()),
		c("ContractDocumentListDto", typeOf[documentListDTO]()),
		c("SigningSubmitterDto", typeOf[signingSubmitterDTO]()),
		c("SigningSubmission", typeOf[signingSubmissionDTO]()),
		c("SigningSubmissionListDto", typeOf[signingSubmissionListDTO]()),
		c("SigningTemplateDto", typeOf[signingTemplateDTO]()),
		c("SigningTemplateDocumentDto", typeOf[signingTemplateDocumentDTO]()),
		c("SigningSubmitter", typeOf[signingSubmitterIn]()),
		c("SigningSubmissionItem", typeOf[signingSubmissionIn]()),
		c("SigningSubmitForSigningInput", typeOf[submitForSigningIn]()),
		c("SigningCreateSubmissionInput", typeOf[createSubmissionsIn]()),
		c("SigningBuilderTokenDto", typeOf[builderTokenDTO]()),
		c("SigningRemindResultDto", typeOf[remindResultDTO]()),
		c("SigningCoolingSignerDto", typeOf[coolingSignerDTO]()),
		c("SigningVerificationDto", typeOf[verificationDTO]()),
		c("SigningWebhookResultDto", typeOf[webhookResultDTO]()),
		c("ReauthenticateInput", typeOf[reauthenticateIn]()),
		c("ReauthenticationDto", typeOf[reauthenticationDTO]()),
		c("PasskeyBeginDto", typeOf[passkeyBeginDTO]()),
		c("PasskeyDto", typeOf[passkeyDTO]()),
		c("PasskeyListDto", typeOf[passkeyListDTO]()),
		c("PasskeyRegisterInput", typeOf[passkeyRegisterIn]()),
		c("PasskeyRenameInput", typeOf[passkeyRenameIn]()),
		c("PasskeyLoginInput", typeOf[passkeyLoginIn]()),
	}
}

// enumerations are the named enumerations, from the domain's value lists,
// and the permission set a request sends.
func enumerations() map[string]js {
	var types []string
	for _, t := range problemTypes {
		types = append(types, t)
	}
	types = append(types, reauthRequired)
	sort.Strings(types)
	var actions []string
	for _, a := range contract.AllActions() {
		actions = append(actions, string(a))
	}
	statusDesc := "a ContractStatus: written as its name; read as the name (case-insensitive; spaces, - and _ ignored) or the integer code"
	typeDesc := "a ContractType: written as its name; read as the name (case-insensitive; spaces, - and _ ignored) or the integer code"
	return map[string]js{
		"ProblemType":    described(enum(types...), "the kind of problem; one type per status, but for 403's reauthentication-required (re-authenticate, then retry)"),
		"ContractStatus": described(enum(statusNames()...), statusDesc),
		"ContractType":   described(enum(typeNames()...), typeDesc),
		"ContractAction": enum(actions...),
		"Permissions":    arrayOf(enum(account.AllPermissionSet.Names()...)),
		"PermissionsInput": lenient(described(arrayOf(str()), "the new permission set: an array of names"),
			"an object with a permissions array", object(js{"permissions": arrayOf(str())}, "permissions")),
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

var (
	timeType     = typeOf[Time]()
	numberType   = typeOf[json.Number]()
	rawJSONType  = typeOf[json.RawMessage]()
	numberInType = typeOf[numberIn]()
	dateInType   = typeOf[dateIn]()
	templateType = typeOf[templateIDIn]()
	textType     = typeOf[textIn]()
	codeType     = typeOf[codeIn]()
	idType       = typeOf[idIn]()
	idsType      = typeOf[idsIn]()
)

// isOpt tells the Opt[T] instances.
func isOpt(t reflect.Type) bool {
	return t.PkgPath() == timeType.PkgPath() && strings.HasPrefix(t.Name(), "Opt[")
}

// generate returns the schemas of components, as JSON Schema 2020-12
// (OpenAPI 3.1): a nullable value is an anyOf with null.
func generate(components []component) (map[string]js, error) {
	names := map[reflect.Type]string{}
	for _, c := range components {
		if _, ok := names[c.typ]; !ok { // a type's first name is the one referred to
			names[c.typ] = c.name
		}
	}
	out := map[string]js{}
	for _, c := range components {
		s, err := schemaOfType(c.typ, names)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", c.name, err)
		}
		if c.require != nil {
			s["required"] = c.require
			props, _ := s["properties"].(js)
			for _, n := range c.require { // required, so not null either
				if p, ok := props[n].(js); ok {
					props[n] = notNull(p)
				}
			}
		}
		out[c.name] = s
	}
	return out, nil
}

// notNull is s without null, undoing nullable.
func notNull(s js) js {
	c := js{}
	for k, v := range s {
		c[k] = v
	}
	if types, ok := s["type"].([]any); ok && len(types) == 2 && types[1] == "null" {
		c["type"] = types[0]
		return c
	}
	if alts, ok := s["anyOf"].([]any); ok && len(alts) == 2 && alts[1].(js)["type"] == "null" {
		if len(s) == 1 {
			return alts[0].(js)
		}
		c["anyOf"] = alts[:1]
	}
	return c
}

// schemaOfType generates t's schema; the named types inside it become
// references.
func schemaOfType(root reflect.Type, names map[reflect.Type]string) (js, error) {
	var customize openapi3gen.SchemaCustomizerFn
	customize = func(_ string, t reflect.Type, tag reflect.StructTag, s *openapi3.Schema) error {
		orNull := s.Nullable
		switch {
		case t == timeType:
			*s = openapi3.Schema{Type: &openapi3.Types{"string"}, Format: "date-time"}
		case t == rawJSONType:
			*s = openapi3.Schema{Type: &openapi3.Types{"object"}}
		case t == numberType:
			*s = openapi3.Schema{Type: &openapi3.Types{"number"}, Format: "double"}
		case t == numberInType:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": nullable(numberInSchema())}}
			orNull = false
		case t == textType:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": nullable(str())}}
		case t == idType:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": nullable(integer())}}
		case t == idsType:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": arrayOf(integer())}}
		case t == codeType:
			// The named enumeration, or its name in any spelling or code.
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": lenient(nullable(ref(tag.Get("names"))), codeNote, str(), integer())}}
		case t == templateType:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": lenient(integer(), "the id as a string", str())}}
		case t == dateInType:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": nullable(dateInSchema())}}
			orNull = false
		case isOpt(t):
			inner, err := schemaOfType(t.Field(2).Type, names)
			if err != nil {
				return err
			}
			if n, ok := names[t.Field(2).Type]; ok {
				inner = ref(n)
			}
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": nullable(inner)}}
			orNull = false
		case names[t] != "" && t != root:
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": ref(names[t])}}
		case t.Kind() == reflect.Struct:
			input := strings.HasSuffix(t.Name(), "In") || t.Name() == "" // anonymous structs are parts of inputs
			s.Required = nil
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "" || name == "-" {
					if f.Anonymous { // embedded: its fields are the parent's
						for j := range f.Type.NumField() {
							n, _, _ := strings.Cut(f.Type.Field(j).Tag.Get("json"), ",")
							if n != "" && n != "-" && !input {
								s.Required = append(s.Required, n)
							}
						}
					}
					continue
				}
				if (!input && !strings.Contains(f.Tag.Get("json"), "omitempty")) || f.Tag.Get("required") == "true" {
					s.Required = append(s.Required, name)
				}
			}
		}
		if r := tag.Get("ref"); r != "" {
			*s = openapi3.Schema{Extensions: map[string]any{"x-schema": ref(r)}}
		}
		if e := tag.Get("enum"); e != "" && s.Type.Is("string") {
			for _, v := range strings.Split(e, ",") {
				s.Enum = append(s.Enum, v)
			}
		}
		if d := tag.Get("doc"); d != "" {
			s.Description = d
		}
		s.Nullable = orNull
		return nil
	}
	g := openapi3gen.NewGenerator(openapi3gen.SchemaCustomizer(customize))
	sr, err := g.GenerateSchemaRef(root)
	if err != nil {
		return nil, err
	}
	inline(sr, map[*openapi3.Schema]bool{})
	b, err := json.Marshal(sr.Value)
	if err != nil {
		return nil, err
	}
	var m js
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return to31(m), nil
}

// to31 rewrites openapi3gen's OpenAPI 3.0 output as 3.1: nullable
// becomes null among the types (or a union with null), and the schemas
// the customizer set (x-schema) replace their placeholders, keeping a
// description (before the schema's own note on what else it accepts).
func to31(m js) js {
	if x, ok := m["x-schema"].(js); ok {
		out := js{}
		for k, v := range to31(x) {
			out[k] = v
		}
		if m["nullable"] == true {
			out = nullable(out)
		}
		if d, ok := m["description"].(string); ok {
			if _, lenient := out[alsoAccepts]; lenient {
				d = withNote(d, out["description"].(string))
			}
			out["description"] = d
		}
		return out
	}
	for k, v := range m {
		switch t := v.(type) {
		case js:
			m[k] = to31(t)
		case []any:
			for i, e := range t {
				if ej, ok := e.(js); ok {
					t[i] = to31(ej)
				}
			}
		}
	}
	// openapi3gen hands a field's tag to its items and values too.
	for _, k := range []string{"items", "additionalProperties"} {
		if c, ok := m[k].(js); ok && c["description"] == m["description"] {
			delete(c, "description")
		}
	}
	if m["nullable"] == true {
		delete(m, "nullable")
		d, hasDesc := m["description"]
		delete(m, "description")
		n := nullable(m)
		if hasDesc {
			n["description"] = d
		}
		return n
	}
	delete(m, "nullable")
	return m
}

// inline clears the names openapi3gen gives every schema as a reference:
// the references of the reference are the customizer's.
func inline(sr *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) {
	if sr == nil {
		return
	}
	sr.Ref = ""
	s := sr.Value
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	for _, p := range s.Properties {
		inline(p, seen)
	}
	inline(s.Items, seen)
	inline(s.AdditionalProperties.Schema, seen)
	for _, l := range []openapi3.SchemaRefs{s.AnyOf, s.OneOf, s.AllOf} {
		for _, x := range l {
			inline(x, seen)
		}
	}
}
