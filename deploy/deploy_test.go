// Package deploy_test checks what deploy/ ships (docs/operations.md: Run it as a
// service, Run it in a container, Metrics): the systemd unit with
// systemd-analyze, the Dockerfile against the Makefile's build, and the
// Prometheus alerts with promtool.
package deploy_test

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

// tool returns the path of a command the test needs, skipping the test
// when it is missing, except on CI (CI=true), where that fails it.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is not on PATH: %v", name, err)
		}
		t.Skipf("%s is not installed (docs/testing.md)", name)
	}
	return p
}

// makeBuild is the recipe of the Makefile's build target, one command.
func makeBuild(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^build:\n\t(.+)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("no build target with a one-line recipe in the Makefile")
	}
	return m[1]
}

var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// binary runs the Makefile's build recipe, as `make build VERSION=v0-test`
// would (into a temporary folder), once per test process.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "counsel-deploy")
		if err != nil {
			built.err = err
			return
		}
		recipe := makeBuild(t)
		recipe = strings.NewReplacer("$(GO)", "go", "$(VERSION)", "v0-test", "$(BIN)", filepath.Join(dir, "counsel")).Replace(recipe)
		cmd := exec.Command("sh", "-c", recipe)
		cmd.Dir = ".."
		built.out, built.err = cmd.CombinedOutput()
		built.path = filepath.Join(dir, "counsel")
	})
	if built.err != nil {
		t.Fatalf("make build: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// TestUnitVerify: systemd-analyze verify reports nothing for the unit.
// verify insists that ExecStart's binary exists, so it checks a copy of
// the unit whose ExecStart is the binary make build makes.
func TestUnitVerify(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sa := tool(t, "systemd-analyze")
	unit, err := os.ReadFile("counsel.service")
	is.NoErr(err)
	is.True(strings.Contains(string(unit), "\nExecStart=/usr/local/bin/counsel serve\n")) // the installed path docs/operations.md names
	copied := strings.Replace(string(unit), "ExecStart=/usr/local/bin/counsel", "ExecStart="+binary(t), 1)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "counsel.service"), []byte(copied), 0o644))
	out, err := exec.Command(sa, "verify", filepath.Join(dir, "counsel.service")).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestUnitExposure: systemd-analyze security --offline=true rates the
// unit 2.0 or lower, and the unit has what docs/operations.md promises.
func TestUnitExposure(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sa := tool(t, "systemd-analyze")
	out, err := exec.Command(sa, "security", "--offline=true", "counsel.service").CombinedOutput()
	is.NoErr(err) // systemd-analyze security runs
	m := regexp.MustCompile(`Overall exposure level for counsel\.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	score, err := strconv.ParseFloat(string(m[1]), 64)
	is.NoErr(err)
	t.Logf("exposure %.1f", score)
	is.True(score <= 2.0) // exposure 2.0 or lower

	unit := unitSettings(t)
	is.Equal(unit["Type"], []string{"notify"})
	is.Equal(unit["StateDirectory"], []string{"counsel"})
	is.True(len(unit["WatchdogSec"]) == 1)                           // a watchdog
	is.True(len(unit["DynamicUser"]) == 1 || len(unit["User"]) == 1) // a user of its own
	is.Equal(unit["NotifyAccess"], []string{"main"})
}

// unitSettings reads the unit's Key=Value lines.
func unitSettings(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("counsel.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[k] = append(out[k], v)
		}
	}
	return out
}

// instruction is one Dockerfile instruction with continuation lines
// joined.
type instruction struct{ cmd, args string }

// stages reads the Dockerfile into its stages' instructions.
func stages(t *testing.T) [][]instruction {
	t.Helper()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var all [][]instruction
	var cur strings.Builder
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		if line == "" {
			return
		}
		cmd, args, _ := strings.Cut(line, " ")
		cmd = strings.ToUpper(cmd)
		if cmd == "FROM" {
			all = append(all, nil)
		}
		if len(all) == 0 { // ARG before the first FROM
			return
		}
		all[len(all)-1] = append(all[len(all)-1], instruction{cmd, strings.TrimSpace(args)})
	}
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		flush()
	}
	flush()
	return all
}

// TestDockerfile checks what can be checked without Docker (docs/operations.md: Run
// it in a container): the build stage runs make build, whose recipe
// builds ./cmd/counsel static (CGO_ENABLED=0) with the version linked
// in; the final stage copies that binary, has no shell, runs as a
// non-root user, declares one volume where the database lives, and checks
// health with `counsel healthcheck`.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	st := stages(t)
	is.True(len(st) >= 2) // multi-stage
	build, final := st[0], st[len(st)-1]

	recipe := makeBuild(t)
	is.True(strings.Contains(recipe, "CGO_ENABLED=0"))                         // static
	is.True(strings.Contains(recipe, `-ldflags "-X main.version=$(VERSION)"`)) // the version linked in
	is.True(strings.HasSuffix(recipe, "./cmd/counsel"))                        // the command's package
	is.True(strings.Contains(recipe, "-o $(BIN)"))

	var runsMake bool
	for _, in := range build {
		if in.cmd == "RUN" && regexp.MustCompile(`(^|&& )make build VERSION=\$\{?VERSION\}?( |$)`).MatchString(in.args) {
			runsMake = true
		}
	}
	is.True(runsMake) // the build stage runs make build with the build's VERSION

	get := func(cmd string) []string {
		var out []string
		for _, in := range final {
			if in.cmd == cmd {
				out = append(out, in.args)
			}
		}
		return out
	}
	from := get("FROM")[0]
	is.True(strings.HasPrefix(from, "gcr.io/distroless/static") || from == "scratch") // an image without a shell
	copies := strings.Join(get("COPY"), "\n")
	is.True(strings.Contains(copies, "--from=build /src/bin/counsel /usr/local/bin/counsel")) // make build's output

	users := get("USER")
	is.Equal(len(users), 1)
	uid, _, _ := strings.Cut(users[0], ":")
	n, err := strconv.Atoi(uid)
	is.NoErr(err)  // a numeric user, which runAsNonRoot can check
	is.True(n > 0) // not root

	volumes := get("VOLUME")
	is.Equal(volumes, []string{`["/var/lib/counsel"]`}) // one volume
	env := strings.Join(get("ENV"), " ")
	is.True(strings.Contains(env, "COUNSEL_DB=/var/lib/counsel/")) // the database is on it

	hc := get("HEALTHCHECK")
	is.Equal(len(hc), 1)
	is.True(strings.Contains(hc[0], `CMD ["/usr/local/bin/counsel", "healthcheck"]`)) // exec form: no shell needed
	for _, cmd := range []string{"RUN", "SHELL"} {
		is.Equal(len(get(cmd)), 0) // nothing in the final stage needs a shell
	}
	for _, e := range append(get("ENTRYPOINT"), get("CMD")...) {
		is.True(strings.HasPrefix(e, "[")) // exec form
	}

	// And the binary make build makes is static: no program interpreter.
	f, err := elf.Open(binary(t))
	is.NoErr(err)
	defer f.Close()
	for _, p := range f.Progs {
		is.True(p.Type != elf.PT_INTERP) // statically linked
	}
	out, err := exec.Command(binary(t), "version").Output()
	is.NoErr(err)
	is.Equal(string(out), "counsel v0-test\n") // the version linked in
}

// TestAlertRules: promtool accepts the alerts and their unit tests.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pt := tool(t, "promtool")
	out, err := exec.Command(pt, "check", "rules", "prometheus/alerts.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	is.True(strings.Contains(string(out), "SUCCESS"))
	cmd := exec.Command(pt, "test", "rules", "alerts_test.yml", "alerts_backup_test.yml")
	cmd.Dir = "prometheus"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}
