package app_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"counsel/adapters/http/apiclient"
	"counsel/app/apptest"

	"github.com/matryer/is"
)

// TestGeneratedClient drives a sign-in, a user creation and a contract
// through the client oapi-codegen generates from /openapi.json.
func TestGeneratedClient(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	ctx := context.Background()
	c, err := apiclient.NewClientWithResponses(s.URL)
	is.NoErr(err)

	otp, err := c.PostApiAccountLoginGetOtpWithResponse(ctx, apiclient.OtpInput{Email: apptest.AdminEmail})
	is.NoErr(err)
	is.Equal(otp.StatusCode(), 200)
	login, err := c.PostApiAccountLoginWithResponse(ctx, apiclient.LoginInput{Email: apptest.AdminEmail, Password: apptest.AdminPassword, Otp: otp.JSON200.Otp})
	is.NoErr(err)
	is.Equal(login.StatusCode(), 200)
	bearer := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+login.JSON200.AccessToken)
		return nil
	}

	// Plain pointer fields: the document gives each value its canonical
	// form and leaves the other accepted forms to the descriptions.
	admitted := time.Date(2016, 3, 1, 0, 0, 0, 0, time.UTC)
	password, last, rate := "jane-password-1", "Doe", 450.0
	user, err := c.PostApiUsersWithResponse(ctx, apiclient.CreateUserInput{
		Email: "jane.doe@firm.example", FirstName: "Jane", LastName: &last, Password: &password,
		AdmissionDate: &admitted, BillingRate: &rate,
	}, bearer)
	is.NoErr(err)
	is.Equal(user.StatusCode(), 201)
	is.Equal(user.JSON201.FullName, "Jane Doe")
	is.True(user.JSON201.AdmissionDate != nil && user.JSON201.AdmissionDate.Equal(admitted))
	is.Equal(user.Headers201.Location, "/api/users/"+strconv.FormatInt(user.JSON201.Id, 10))

	amount, kind, matter := 42000.5, apiclient.LicenseAgreement, int64(17)
	created, err := c.PostApiContractsWithResponse(ctx, apiclient.CreateContractInput{
		ContractName: "Office lease", Amount: &amount, ContractType: &kind, MatterId: &matter,
	}, bearer)
	is.NoErr(err)
	is.Equal(created.StatusCode(), 201)
	got, err := c.GetApiContractsIdWithResponse(ctx, strconv.FormatInt(created.JSON201.Id, 10), bearer)
	is.NoErr(err)
	is.Equal(got.StatusCode(), 200)
	is.Equal(got.JSON200.ContractName, "Office lease")
	is.Equal(got.JSON200.Status, apiclient.Draft)
	is.Equal(got.JSON200.ContractType, apiclient.LicenseAgreement)
	is.True(got.JSON200.Amount != nil)
	is.Equal(*got.JSON200.Amount, 42000.5)

	anonymous, err := c.GetApiContractsIdWithResponse(ctx, "1")
	is.NoErr(err)
	is.Equal(anonymous.StatusCode(), 401)
	is.Equal(anonymous.ApplicationproblemJSON401.Type, apiclient.ProblemType("/problems/unauthorized"))
}
