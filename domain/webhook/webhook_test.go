package webhook

import (
	"bytes"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/contract"
)

// The test vector of the Standard Webhooks specification's libraries.
func TestSignStandardVector(t *testing.T) {
	is := is.New(t)
	key, err := SecretKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	is.NoErr(err)
	got := Sign([][]byte{key}, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	is.Equal(got, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	other := []byte("another secret")
	both := Sign([][]byte{other, key}, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	parts := strings.Split(both, " ")
	is.Equal(len(parts), 2)
	is.Equal(parts[1], got) // each secret signs alike, space-separated
	is.True(parts[0] != got && strings.HasPrefix(parts[0], "v1,"))
}

func TestNewSecret(t *testing.T) {
	is := is.New(t)
	s, err := NewSecret(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	is.NoErr(err)
	is.True(strings.HasPrefix(s, "whsec_"))
	k, err := SecretKey(s)
	is.NoErr(err)
	is.Equal(k, bytes.Repeat([]byte{7}, 32))
	_, err = NewSecret(bytes.NewReader(nil))
	is.True(err != nil)
	_, err = SecretKey("whsec_***")
	is.True(err != nil)
}

func TestNextAttempt(t *testing.T) {
	is := is.New(t)
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour, 14 * time.Hour}
	for i, w := range want {
		d, ok := NextAttempt(i+1, 1)
		is.True(ok)
		is.Equal(d, w)
	}
	_, ok := NextAttempt(9, 1)
	is.True(!ok) // the ninth attempt is the last
	_, ok = NextAttempt(0, 1)
	is.True(!ok)
	d, _ := NextAttempt(2, 0.001)
	is.Equal(d, 300*time.Millisecond)
	is.Equal(MaxAttempts, 9)
}

func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"https://hooks.example.com/counsel?x=1", true},
		{"http://93.184.216.34:8080/in", true},
		{"http://[2606:2800:220:1:248:1893:25c8:1946]/", true},
		{"", false},
		{"ftp://example.com/", false},
		{"/relative", false},
		{"example.com/path", false},
		{"https://", false},
		{"mailto:a@example.com", false},
		{"https://user:pw@example.com/", false},
		{"http://127.0.0.1/", false},
		{"http://10.1.2.3/", false},
		{"http://172.16.0.1/", false},
		{"http://192.168.1.1/", false},
		{"http://169.254.169.254/latest/meta-data", false},
		{"http://[::1]/", false},
		{"http://[fd12:3456::1]/", false},
		{"http://[fe80::1]/", false},
		{"http://[::ffff:10.0.0.1]/", false},
		{"http://0.0.0.0/", false},
		{"http://100.64.0.1/", false},
		{"https://example.com/" + strings.Repeat("a", 2048), false},
	} {
		err := CheckURL(c.url, false)
		if (err == nil) != c.ok {
			t.Errorf("CheckURL(%.60q) = %v, want ok %v", c.url, err, c.ok)
		}
		if err != nil && domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("CheckURL(%.60q): code %s, want invalid", c.url, domain.ErrorCode(err))
		}
		// Allowing private addresses allows only those.
		lit := strings.Contains(c.url, "://127.") || strings.Contains(c.url, "://10.") || strings.Contains(c.url, "[::1]")
		if err := CheckURL(c.url, true); lit && err != nil {
			t.Errorf("CheckURL(%q, allowPrivate) = %v", c.url, err)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		addr    string
		refused bool
	}{
		{"8.8.8.8", false}, {"93.184.216.34", false}, {"2606:4700::1111", false},
		{"127.0.0.1", true}, {"127.8.9.10", true}, {"::1", true},
		{"10.0.0.1", true}, {"172.31.255.255", true}, {"192.168.0.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fc00::1", true}, {"fdff::1", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:192.168.1.1", true}, {"0.0.0.0", true}, {"::", true},
		{"100.100.100.200", true}, {"224.0.0.1", true}, {"ff02::1", true}, {"255.255.255.255", true},
		{"64:ff9b::a00:1", true}, {"2002:a00:1::1", true}, {"fec0::1", true},
	} {
		if got := Refused(netip.MustParseAddr(c.addr)); got != c.refused {
			t.Errorf("Refused(%s) = %v, want %v", c.addr, got, c.refused)
		}
	}
	if !Refused(netip.Addr{}) {
		t.Error("the zero address must be refused")
	}
}

// FuzzCheckURL: no input panics, and an accepted URL never names a
// refused address literally.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/", "http://[::ffff:127.0.0.1]:80/", "http://0x7f.1/", "http://user@h/", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckURL(s, false) != nil {
			return
		}
		u, err := parseForFuzz(s)
		if err != nil {
			t.Fatalf("accepted %q that does not parse: %v", s, err)
		}
		if a, err := netip.ParseAddr(u); err == nil && Refused(a) {
			t.Fatalf("accepted %q naming a refused address", s)
		}
	})
}

func parseForFuzz(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	return u.Hostname(), nil
}

func TestContractChanges(t *testing.T) {
	type e = contract.AuditEntry
	for _, tt := range []struct {
		name    string
		entries []contract.AuditEntry
		want    []Change
	}{
		{"nothing", nil, nil},
		{"created", []e{{Action: contract.ActionCreated, To: contract.Draft}}, []Change{{Type: ContractCreated}}},
		{"updated", []e{{Action: contract.ActionUpdated}}, []Change{{Type: ContractUpdated}}},
		{"updated with a status", []e{{Action: contract.ActionUpdated}, {Action: contract.ActionStatusChanged, From: contract.Draft, To: contract.ContractDesign}},
			[]Change{{Type: ContractUpdated}, {Type: ContractStatusChanged, From: "Draft", To: "ContractDesign"}}},
		{"documents", []e{{Action: contract.ActionDocumentAdded}, {Action: contract.ActionDocumentRemoved}},
			[]Change{{Type: ContractDocumentAdded}, {Type: ContractDocumentRemoved}}},
		{"deleted", []e{{Action: contract.ActionDeleted, From: contract.Draft}}, []Change{{Type: ContractDeleted}}},
		{"submitted", []e{{Action: contract.ActionSubmittedForSigning, From: contract.Draft, To: contract.WaitingForClientSignature}},
			[]Change{{Type: SigningSubmitted}, {Type: ContractStatusChanged, From: "Draft", To: "WaitingForClientSignature"}}},
		{"linked to signing", []e{{Action: contract.ActionSubmittedForSigning}}, []Change{{Type: SigningSubmitted}}},
		{"completed", []e{{Action: contract.ActionSigningEvent, From: contract.WaitingForClientSignature, To: contract.Signed}},
			[]Change{{Type: SigningCompleted}, {Type: ContractStatusChanged, From: "WaitingForClientSignature", To: "Signed"}}},
		{"declined", []e{{Action: contract.ActionSigningEvent, From: contract.WaitingForClientSignature, To: contract.Declined}},
			[]Change{{Type: SigningDeclined}, {Type: ContractStatusChanged, From: "WaitingForClientSignature", To: "Declined"}}},
		{"expired", []e{{Action: contract.ActionSigningEvent, From: contract.WaitingForClientSignature, To: contract.Expired}},
			[]Change{{Type: SigningExpired}, {Type: ContractStatusChanged, From: "WaitingForClientSignature", To: "Expired"}}},
		{"one signer of several", []e{{Action: contract.ActionSigningEvent}}, nil},
		{"evidence", []e{{Action: contract.ActionSigningCompleted}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(ContractChanges(tt.entries), tt.want)
		})
	}
}
