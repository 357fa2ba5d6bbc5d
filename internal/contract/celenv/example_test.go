package celenv_test

import (
	"fmt"
	"slices"

	"github.com/admission-conformance/admission-conformance/internal/contract/celenv"
)

// The fields recorder counts, for the contract's coverage report, which
// variables and libraries the expressions a spec writes use: a policy
// reading the object and asking the authorizer, a webhook matching on the
// requester's groups.
func ExampleUsed() {
	fmt.Println(celenv.Used(celenv.Validating,
		`object.metadata.name.startsWith('acme-') && authorizer.group('').resource('configmaps').check('get').allowed()`))
	fmt.Println(celenv.Used(celenv.Webhook, `request.userInfo.groups.exists(g, g == 'acme:admins')`))
	// Output:
	// [libraries.cel.lib.std libraries.kubernetes.authz variables.validating.authorizer variables.validating.object]
	// [libraries.cel.lib.std variables.webhook.request]
}

// The variables a webhook's matchConditions may read, as the pinned
// apiserver declares them.
func ExamplePinned() {
	inv, err := celenv.Pinned()
	if err != nil {
		panic(err)
	}
	var names []string
	for _, v := range inv.Variables {
		if v.Context == celenv.Webhook {
			names = append(names, v.Name)
		}
	}
	slices.Sort(names)
	fmt.Println(celenv.Webhook.Describe()+":", names)
	// Output:
	// webhook matchConditions: [authorizer authorizer.requestResource namespaceObject object oldObject request]
}
