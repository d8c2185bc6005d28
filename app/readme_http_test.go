package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/ports/porttest"

	"github.com/pquerna/otp/totp"
)

// curlCommand is one curl line of a README walkthrough.
type curlCommand struct {
	assign  string // VAR in VAR=$(curl ...), else ""
	field   string // the JSON field the pipe extracts for assign
	method  string
	target  string // path and query, after $B
	headers [][2]string
	body    string // -d body, after the shell's quoting
	query   []string
	file    string // -F file=@name
}

var (
	curlToken  = regexp.MustCompile(`'[^']*'|"(?:[^"\\]|\\.)*"|\S+`)
	curlAssign = regexp.MustCompile(`^([A-Z_]+)=\$\((.*)\)$`)
	curlJQ     = regexp.MustCompile(`jq -r \.(\w+)`)
	curlSed    = regexp.MustCompile(`sed 's/\.\*"(\w+)"`)
	curlVar    = regexp.MustCompile(`\$([A-Z_]+)`)
	curlOTP    = regexp.MustCompile(`"otp":"[0-9]{6}"`)
)

// walkthroughPages hold the curl walkthroughs, in the order they build on
// each other: sign-in, users, contracts, signing, authenticator apps.
var walkthroughPages = []string{"../README.md", "../docs/api.md", "../docs/signing.md", "../docs/security.md"}

// readmeCurls returns the curl commands of the walkthrough pages' sh blocks that
// send a JSON body (the walkthroughs), in order, with continuation lines
// joined and comments dropped.
func readmeCurls(t *testing.T) []string {
	t.Helper()
	var raw []byte
	for _, f := range walkthroughPages {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		raw = append(append(raw, b...), '\n')
	}
	var out, block []string
	in := false
	var cur strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			if in && slices.ContainsFunc(block, func(l string) bool { return strings.Contains(l, " -d ") }) {
				out = append(out, block...)
			}
			in, block = false, nil
			continue
		}
		if !in || (cur.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), "#")) {
			continue
		}
		if cur.Len() > 0 {
			cur.WriteString(" ")
		}
		cur.WriteString(strings.TrimSpace(line))
		if strings.HasSuffix(line, `\`) {
			s := cur.String()
			cur.Reset()
			cur.WriteString(strings.TrimSuffix(s, `\`))
			continue
		}
		// An open single-quoted body goes on over lines.
		if strings.Count(cur.String(), "'")%2 == 1 {
			continue
		}
		l := cur.String()
		cur.Reset()
		if strings.Contains(l, "curl ") && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "`") {
			block = append(block, l)
		}
	}
	return out
}

// unquote undoes the shell quoting of one word and expands variables in
// double quotes and bare words.
func unquote(w string, vars map[string]string) string {
	expand := func(s string) string {
		return curlVar.ReplaceAllStringFunc(s, func(m string) string { return vars[m[1:]] })
	}
	switch {
	case strings.HasPrefix(w, "'"):
		return strings.Trim(w, "'")
	case strings.HasPrefix(w, `"`):
		s := strings.Trim(w, `"`)
		s = strings.ReplaceAll(s, `\"`, `"`)
		return expand(s)
	}
	return expand(w)
}

func parseCurl(t *testing.T, line string, vars map[string]string) curlCommand {
	t.Helper()
	var c curlCommand
	if m := curlAssign.FindStringSubmatch(line); m != nil {
		c.assign = m[1]
		line = m[2]
		if j := curlJQ.FindStringSubmatch(line); j != nil {
			c.field = j[1]
		} else if s := curlSed.FindStringSubmatch(line); s != nil {
			c.field = s[1]
		}
		line, _, _ = strings.Cut(line, " | ")
	}
	line, _, _ = strings.Cut(line, " # ")
	words := curlToken.FindAllString(line, -1)
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() string { i++; return unquote(words[i], vars) }
		switch w {
		case "-s", "-si", "-OJ":
		case ">": // the answer saved to a file: the test keeps it anyway
			i++
		case "-G":
			c.method = "GET"
		case "-X":
			c.method = next()
		case "-H":
			k, v, _ := strings.Cut(next(), ": ")
			c.headers = append(c.headers, [2]string{k, v})
		case "-d":
			c.body = next()
		case "--data-urlencode":
			c.query = append(c.query, next())
		case "-F":
			_, f, _ := strings.Cut(next(), "=@")
			c.file = f
		default:
			if strings.HasPrefix(w, "-") {
				t.Fatalf("README curl: unknown option %s in %s", w, line)
			}
			u := unquote(w, vars)
			c.target = strings.TrimPrefix(u, vars["B"])
		}
	}
	if c.method == "" {
		c.method = "GET"
		if c.body != "" || c.file != "" {
			c.method = "POST"
		}
	}
	return c
}

// TestREADMEWalkthroughs runs the README's curl examples, in order,
// against a real server: each answers a 2xx, and (through apptest) every
// exchange, its JSON body included, validates against /openapi.json.
func TestREADMEWalkthroughs(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.AdminEmail = "admin@localhost" })
	vars := map[string]string{"B": s.URL, "PW": apptest.AdminPassword, "ADMIN_PASSWORD": apptest.AdminPassword}
	lines := readmeCurls(t)
	withBody := 0
	for _, line := range lines {
		c := parseCurl(t, line, vars)
		var body io.Reader
		ctype := ""
		switch {
		case c.file != "":
			var r io.Reader
			r, ctype = contractMultipart("file", c.file, bytes.NewReader(porttest.MinimalPDF(1)))
			body = r
		case c.body != "":
			// The examples show a code from an earlier answer, or from
			// the authenticator app once one is enrolled.
			b := curlOTP.ReplaceAllStringFunc(c.body, func(string) string {
				if vars["SECRET"] == "" {
					return `"otp":"` + vars["OTP"] + `"`
				}
				s.Clock.Advance(31 * time.Second) // a new step: a code is good once
				code, err := totp.GenerateCode(vars["SECRET"], s.Clock.Now())
				if err != nil {
					t.Fatalf("README: totp code: %v", err)
				}
				return `"otp":"` + code + `"`
			})
			if !json.Valid([]byte(b)) {
				t.Fatalf("README: the body of %s is not JSON: %s", line, b)
			}
			withBody++
			body = strings.NewReader(b)
		}
		if len(c.query) > 0 {
			c.target += "?" + strings.Join(c.query, "&")
		}
		req, err := http.NewRequest(c.method, s.URL+c.target, body)
		if err != nil {
			t.Fatalf("README %s: %v", line, err)
		}
		for _, h := range c.headers {
			req.Header.Add(h[0], h[1])
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		r := s.Send(t, req)
		if r.Status < 200 || r.Status > 299 {
			t.Fatalf("README %s: %d %s", line, r.Status, r.Body)
		}
		var m map[string]any
		_ = json.Unmarshal(r.Body, &m)
		if tok, ok := m["accessToken"].(string); ok {
			vars["AT"], vars["RT"] = tok, m["refreshToken"].(string)
		}
		if otp, ok := m["otp"].(string); ok {
			vars["OTP"] = otp
		}
		if secret, ok := m["secret"].(string); ok {
			vars["SECRET"] = secret
		}
		if c.assign != "" {
			v, _ := m[c.field].(string)
			if v == "" {
				t.Fatalf("README %s: no %s in %s", line, c.field, r.Body)
			}
			vars[c.assign] = v
			if c.assign == "TOKEN" {
				vars["H"] = "Authorization: Bearer " + v
			}
		}
	}
	if len(lines) < 20 || withBody < 12 {
		t.Fatalf("README: found %d curl commands, %d with a JSON body; the parser lost some", len(lines), withBody)
	}
	t.Logf("README: %d curl commands run, %d with a JSON body", len(lines), withBody)
}
