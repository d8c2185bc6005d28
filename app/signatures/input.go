package signatures

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// checkSubmitters validates the submitters listed under field and returns
// them as the provider takes them: trimmed, and each with a role of its
// own ("Signer N" where none is given, N counting from 1), since both
// providers match submitters to template roles by name. Field errors are
// keyed field[i].name.
func checkSubmitters(field string, in []ports.SigningSubmitter, f domain.FieldErrors) []signing.NewSubmitter {
	switch {
	case len(in) == 0:
		f.Add(field, "at least one submitter is required")
		return nil
	case len(in) > maxSubmitters:
		f.Add(field, fmt.Sprintf("at most %d submitters", maxSubmitters))
		return nil
	}
	out := make([]signing.NewSubmitter, len(in))
	emails, roles := map[string]bool{}, map[string]bool{}
	for i, s := range in {
		key := func(name string) string { return fmt.Sprintf("%s[%d].%s", field, i, name) }
		n := signing.NewSubmitter{
			Name:  strings.Join(strings.Fields(s.Name), " "),
			Email: strings.TrimSpace(s.Email),
			Phone: strings.TrimSpace(s.Phone),
			Role:  strings.TrimSpace(s.Role),
		}
		if n.Phone != "" {
			phone, ok := normalizePhone(n.Phone)
			if !ok {
				f.Add(key("phone"), "phone must be an international number: + and the country code, then 8 to 15 digits in all (spaces, dashes, dots and parentheses are ignored)")
			}
			n.Phone = phone
		}
		if n.Role == "" {
			n.Role = fmt.Sprintf("Signer %d", i+1)
		}
		switch {
		case n.Email == "" && n.Phone == "":
			f.Add(key("email"), "email is required (or, for SMS only, a phone)")
		case n.Email != "" && !validEmail(n.Email):
			f.Add(key("email"), "email is not a valid address")
		case n.Email != "" && emails[strings.ToLower(n.Email)]:
			f.Add(key("email"), "each submitter needs an email of their own")
		}
		emails[strings.ToLower(n.Email)] = n.Email != ""
		if utf8.RuneCountInString(n.Name) > maxNameLen {
			f.Add(key("name"), fmt.Sprintf("name must be at most %d characters", maxNameLen))
		}
		switch {
		case utf8.RuneCountInString(n.Role) > maxNameLen:
			f.Add(key("role"), fmt.Sprintf("role must be at most %d characters", maxNameLen))
		case roles[strings.ToLower(n.Role)]:
			f.Add(key("role"), fmt.Sprintf("role %q is given twice; every submitter needs a role of their own", n.Role))
		}
		roles[strings.ToLower(n.Role)] = true
		out[i] = n
	}
	return out
}

// anyEmail reports whether some submitter has an email.
func anyEmail(in []ports.SigningSubmitter) bool {
	for _, s := range in {
		if strings.TrimSpace(s.Email) != "" {
			return true
		}
	}
	return false
}

// validEmail accepts a bare address (no display name, no line breaks)
// that DocuSeal accepts too: its User::FULL_EMAIL_REGEXP (ASCII, a domain
// with a top-level part of two letters or more).
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && len(s) <= 254 && emailPattern.MatchString(s)
}

var emailPattern = regexp.MustCompile(`(?i)^[a-z0-9][.']?(?:(?:[a-z0-9_-]+[.+'])*[a-z0-9_-]+)*@(?:[a-z0-9]+[.-])*[a-z0-9]+\.[a-z]{2,}$`)

// normalizePhone returns phone in E.164: spaces, dashes, dots and
// parentheses removed, then "+" and 8 to 15 digits; ok is false for
// anything else.
func normalizePhone(phone string) (string, bool) {
	var b strings.Builder
	for _, r := range phone {
		switch {
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')' || r == '\t':
		case r == '+' && b.Len() == 0:
			b.WriteRune(r)
		case r >= '0' && r <= '9' && b.Len() > 0:
			b.WriteRune(r)
		default:
			return phone, false
		}
	}
	out := b.String()
	return out, len(out) >= 9 && len(out) <= 16
}

// checkOrder reads a signing order: preserved (the default) or random,
// case-insensitively.
func checkOrder(order string, f domain.FieldErrors) string {
	switch o := strings.ToLower(strings.TrimSpace(order)); o {
	case "":
		return signing.OrderPreserved
	case signing.OrderPreserved, signing.OrderRandom:
		return o
	}
	f.Add("order", `order must be "preserved" or "random"`)
	return ""
}

// checkMessage checks the invitation message: DocuSeal requires a body
// whenever a message is sent, so a subject without a body is refused
// with either provider.
func checkMessage(m signing.Message, f domain.FieldErrors) {
	if strings.TrimSpace(m.Subject) != "" && strings.TrimSpace(m.Body) == "" {
		f.Add("message.body", "a message with a subject needs a body")
	}
	if utf8.RuneCountInString(m.Subject) > maxSubjectLen {
		f.Add("message.subject", fmt.Sprintf("the subject must be at most %d characters", maxSubjectLen))
	}
	if utf8.RuneCountInString(m.Body) > maxBodyLen {
		f.Add("message.body", fmt.Sprintf("the body must be at most %d characters", maxBodyLen))
	}
}
