package http

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// schemaNames are the component schemas of the API reference. They become
// type names in generated clients, so a rename breaks every client: change
// this list only on purpose. The naming rule is in docs/api.md ("Schema names").
var schemaNames = []string{
	"AddressDto",
	"AddressInput",
	"ApiKeyCreatedDto",
	"ApiKeyDto",
	"ApiKeyInput",
	"ApiKeyListDto",
	"AuditEventDto",
	"AuditEventPageDto",
	"ChangePasswordInput",
	"ContractAction",
	"ContractDocumentDto",
	"ContractDocumentListDto",
	"ContractDto",
	"ContractHistoryEntryDto",
	"ContractHistoryEntryPageDto",
	"ContractListDto",
	"ContractListPageDto",
	"ContractStatus",
	"ContractStatusChangeInput",
	"ContractStatusResultsDto",
	"ContractType",
	"CreateContractInput",
	"CreateUserInput",
	"CurrentUserDto",
	"FormattedUserDto",
	"FormattedUserPageDto",
	"IdpLoginInput",
	"LoginInput",
	"LogoutInput",
	"MailPageDto",
	"OfferingReviewersDto",
	"OfficeDto",
	"OfficeInput",
	"OtpInput",
	"OtpResultDto",
	"PasskeyBeginDto",
	"PasskeyDto",
	"PasskeyListDto",
	"PasskeyLoginInput",
	"PasskeyRegisterInput",
	"PasskeyRenameInput",
	"Permissions",
	"PermissionsInput",
	"PqeAdjustmentDto",
	"PqeAdjustmentInput",
	"PqeAdjustmentPageDto",
	"ProblemDto",
	"ProblemType",
	"ReauthenticateInput",
	"ReauthenticationDto",
	"RefreshInput",
	"RemunerationDto",
	"RemunerationInput",
	"RemunerationPageDto",
	"ReviewersInput",
	"RoleDto",
	"RoleInput",
	"SessionDto",
	"SessionListDto",
	"SigningBuilderTokenDto",
	"SigningCoolingSignerDto",
	"SigningCreateSubmissionInput",
	"SigningRemindResultDto",
	"SigningSubmission",
	"SigningSubmissionItem",
	"SigningSubmissionListDto",
	"SigningSubmitForSigningInput",
	"SigningSubmitter",
	"SigningSubmitterDto",
	"SigningTemplateDocumentDto",
	"SigningTemplateDto",
	"SigningVerificationDto",
	"SigningWebhookResultDto",
	"StaffDto",
	"TokenResultDto",
	"TotpConfirmInput",
	"TotpDisableInput",
	"TotpEnrolmentDto",
	"TotpRecoveryCodesDto",
	"TotpStatusDto",
	"UpdateContractInput",
	"UpdateUserInput",
	"UserDto",
	"WebhookCreatedDto",
	"WebhookDeliveryDto",
	"WebhookDeliveryPageDto",
	"WebhookDto",
	"WebhookInput",
	"WebhookListDto",
}

// specNames are the schema names the specification gives, kept as it
// spells them even where they leave the rule (requests of a specification
// name without Input, a response without Dto).
var specNames = map[string]string{
	"ContractDto":                  "response",
	"ContractListDto":              "response",
	"CurrentUserDto":               "response",
	"RemunerationDto":              "response",
	"SigningSubmission":            "response",
	"SigningTemplateDto":           "response",
	"UserDto":                      "response",
	"CreateContractInput":          "request",
	"UpdateContractInput":          "request",
	"SigningCreateSubmissionInput": "request",
	"SigningSubmissionItem":        "request",
	"SigningSubmitter":             "request",
}

// apiDocument is the parts of the served document the naming tests read.
type apiDocument struct {
	Paths map[string]map[string]struct {
		Parameters  []json.RawMessage
		RequestBody json.RawMessage `json:"requestBody"`
		Responses   json.RawMessage
	}
	Components struct{ Schemas map[string]json.RawMessage }
}

// schemaUse reads the served document and tells, for each named schema,
// whether requests ("request": bodies and parameters) and responses
// ("response") reach it, directly or through other schemas.
func schemaUse(t *testing.T) (apiDocument, map[string]map[string]bool) {
	t.Helper()
	var doc apiDocument
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`"#/components/schemas/([A-Za-z]+)"`)
	used := map[string]map[string]bool{}
	var reach func(side string, raw []byte)
	reach = func(side string, raw []byte) {
		for _, m := range refs.FindAllSubmatch(raw, -1) {
			n := string(m[1])
			if used[n] == nil {
				used[n] = map[string]bool{}
			}
			if !used[n][side] {
				used[n][side] = true
				reach(side, doc.Components.Schemas[n])
			}
		}
	}
	for _, item := range doc.Paths {
		for _, o := range item {
			reach("request", o.RequestBody)
			for _, p := range o.Parameters {
				reach("request", p)
			}
			reach("response", o.Responses)
		}
	}
	return doc, used
}

// TestSchemaNames keeps the schema names a deliberate list and checks the
// rule: a schema only requests use ends in Input, one only responses use
// in Dto (a page in PageDto), an enumeration is a bare noun; names of the
// specification are kept as it spells them.
func TestSchemaNames(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	doc, used := schemaUse(t)
	var got []string
	for n := range doc.Components.Schemas {
		got = append(got, n)
	}
	sort.Strings(got)
	is.Equal(got, schemaNames) // the schema names: a rename is a change of schemaNames
	enums := enumerations()
	for _, n := range schemaNames {
		t.Run(n, func(t *testing.T) {
			is := is.New(t)
			is.True(len(used[n]) > 0) // every schema is used
			if side, ok := specNames[n]; ok {
				is.True(used[n][side] && len(used[n]) == 1) // a specification name, on its side only
				return
			}
			if isEnumeration(enums[n]) {
				is.True(!strings.HasSuffix(n, "Input") && !strings.HasSuffix(n, "Dto")) // an enumeration: a bare noun
				return
			}
			switch {
			case strings.HasSuffix(n, "Input"):
				is.True(used[n]["request"] && !used[n]["response"]) // an input: requests only
			case strings.HasSuffix(n, "Dto"):
				is.True(used[n]["response"] && !used[n]["request"]) // an output: responses only
			default:
				t.Errorf("%s is neither an input (...Input), an output (...Dto) nor an enumeration", n)
			}
		})
	}
}

// TestLenientOnlyInRequests checks that the forms a request value may take
// besides its canonical one (x-also-accepts) are on request schemas only:
// openapitest widens the schemas that carry them, so a response schema
// carrying them would be checked less strictly than it reads.
func TestLenientOnlyInRequests(t *testing.T) {
	t.Parallel()
	doc, used := schemaUse(t)
	lenient := []byte(`"` + alsoAccepts + `"`)
	requests := 0
	for n, s := range doc.Components.Schemas {
		if !bytes.Contains(s, lenient) {
			continue
		}
		if used[n]["response"] {
			t.Errorf("%s carries %s and answers use it", n, alsoAccepts)
		}
		requests++
	}
	for p, item := range doc.Paths {
		for m, o := range item {
			if bytes.Contains(o.Responses, lenient) {
				t.Errorf("%s %s: a response schema carries %s", m, p, alsoAccepts)
			}
		}
	}
	is.New(t).True(requests > 0) // the lenient request values are marked
}

// isEnumeration tells a schema of listed values, or an array of them.
func isEnumeration(s js) bool {
	if items, ok := s["items"].(js); ok {
		s = items
	}
	return s["enum"] != nil
}
