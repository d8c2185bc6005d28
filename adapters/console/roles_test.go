package console_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/account"
)

// TestRoleFormOffersEveryPermission: the role form reads its grouping from
// the domain's permission table (account.Areas), so a new permission
// reaches it, under its area, with nothing to change in the console.
func TestRoleFormOffersEveryPermission(t *testing.T) {
	is := is.New(t)
	_, b := adminBrowser(t)
	page := b.get("/console/roles/new")
	is.Equal(page.Status, 200)
	var offered []string
	for _, m := range regexp.MustCompile(`name="permissions" value="([A-Za-z]+)"`).FindAllStringSubmatch(page.Body, -1) {
		offered = append(offered, m[1])
	}
	is.Equal(offered, account.AllPermissionSet.Names()) // each permission once, in the documented order
	for _, a := range account.Areas() {
		legend := "<legend>" + a.Name + "</legend>"
		i := strings.Index(page.Body, legend)
		is.True(i >= 0) // the area's group
		group := page.Body[i:]
		group = group[:strings.Index(group, "</fieldset>")]
		for _, p := range a.Permissions {
			is.True(strings.Contains(group, `value="`+p.String()+`"`)) // under its area
		}
	}
}
