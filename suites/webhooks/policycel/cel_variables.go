package policycel

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyCELVariables = spec.Spec{
	ShortName: "PolicyCELVariables",
	Suite:     "webhooks",
	Description: "What each variable of the admission CEL environment holds: in ValidatingAdmissionPolicy expressions on " +
		"CREATE, UPDATE, DELETE and CONNECT (pods/exec) object, oldObject, request (operation, name, namespace, " +
		"resource, subResource, kind, userInfo, dryRun, options), namespaceObject, params and variables; authorizer " +
		"checks (group, resource, namespace, name, subresource, path, serviceAccount, reason, errored, error, " +
		"fieldSelector, labelSelector) made for the requesting user and authorizer.requestResource for the request's " +
		"own resource; and in webhook matchConditions object, oldObject, request and authorizer.",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.ValidatingWebhook, features.WebhookMatchConditions},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.validations[].expression (variables); " +
		"ValidatingWebhook.matchConditions[].expression",
	Impersonates: []identity.Name{identity.CELLimitedUser, identity.ClusterAdmin, identity.Node},
}

// celLimitedUser is the user a case impersonates to show the authorizer
// acts for the requesting user: its Role (celAuthzRole) lets it create
// configmaps in the case's namespace and get configmap "named" there,
// nothing else. The identities are framework/identity's, whose rights the
// run asks for by name.
var celLimitedUser = speckit.IdentityOf(identity.CELLimitedUser).User

// celNode is the node a case impersonates (identity.Node: system:node:<celNode>
// in group system:nodes): the Node authorizer lets it list pods only with
// the field selector spec.nodeName=<celNode>.
var celNode = strings.TrimPrefix(speckit.IdentityOf(identity.Node).User, "system:node:")

const (
	celAuthzRole = "cel-authz"
	// celGrantedSA is a service account name the same binding grants, so
	// authorizer.serviceAccount(namespace, celGrantedSA) is allowed what
	// the Role allows.
	celGrantedSA = "granted"
)

// limitedClient binds celLimitedUser and service account celGrantedSA to
// celAuthzRole, waits until every apiserver authorizes both, and returns a
// client impersonating celLimitedUser.
func limitedClient(ctx context.Context, f *harness.Framework) kubernetes.Interface {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: celAuthzRole, Namespace: f.Namespace, Labels: f.Labels()},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{"named"}},
		}}
	_, err := f.Client.RbacV1().Roles(f.Namespace).Create(ctx, role, metav1.CreateOptions{})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: celAuthzRole, Namespace: f.Namespace, Labels: f.Labels()},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: celAuthzRole},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: celLimitedUser},
			{Kind: rbacv1.ServiceAccountKind, Name: celGrantedSA, Namespace: f.Namespace},
		}}
	_, err = f.Client.RbacV1().RoleBindings(f.Namespace).Create(ctx, binding, metav1.CreateOptions{})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	// Both subjects are in one binding: once one is authorized on a
	// replica, the other is too.
	_, err = enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, f.Bounds.ObjectState.Duration, f.Bounds.PollInterval.Duration,
		func(ctx context.Context, rc *rest.Config) (bool, error) {
			client, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return false, err
			}
			review, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: celLimitedUser, ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: f.Namespace, Verb: "get", Resource: "configmaps", Name: "named"}}}, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			return review.Status.Allowed, nil
		})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "every apiserver must authorize %s through RoleBinding %s", celLimitedUser, celAuthzRole)
	return impersonating(ctx, f, identity.CELLimitedUser)
}

// impersonating is a client acting as a registered identity; a case whose
// run may not impersonate it is reported not supported (Impersonate).
func impersonating(ctx context.Context, f *harness.Framework, name identity.Name) kubernetes.Interface {
	rc, err := f.Impersonate(ctx, name, "")
	gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred())
	client, err := kubernetes.NewForConfig(rc)
	gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred())
	return client
}

// renderRequest is a messageExpression showing what object, oldObject,
// request, namespaceObject, params and variables hold.
const renderRequest = `'operation=' + request.operation + ' name=' + request.name + ' namespace=' + request.namespace +
	' resource=' + request.resource.group + '/' + request.resource.version + '/' + request.resource.resource +
	' subResource=' + request.?subResource.orValue('') + ' kind=' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind +
	' requestResource=' + request.requestResource.resource + ' requestKind=' + request.requestKind.kind +
	' user=' + request.userInfo.username + ' dryRun=' + string(request.dryRun) +
	' options=' + (request.options == null ? 'null' : string(request.options.?kind.orValue('<none>')) +
		' fieldManager=' + string(request.options.?fieldManager.orValue('')) +
		' propagationPolicy=' + string(request.options.?propagationPolicy.orValue('')) +
		' dryRun=' + request.options.?dryRun.orValue([]).join(',')) +
	' object=' + (object == null ? 'null' : string(object.?apiVersion.orValue('<none>')) + '/' + string(object.?kind.orValue('<none>')) +
		' ' + string(object.metadata.name) + ' phase ' + string(object.?data.?phase.orValue('<none>'))) +
	' oldObject=' + (oldObject == null ? 'null' : string(oldObject.?apiVersion.orValue('<none>')) + '/' + string(oldObject.?kind.orValue('<none>')) +
		' ' + string(oldObject.metadata.name) + ' phase ' + string(oldObject.?data.?phase.orValue('<none>')) +
		' resourceVersion ' + string(oldObject.metadata.resourceVersion)) +
	' namespaceObject=' + namespaceObject.metadata.name + ' ' + namespaceObject.status.phase +
	' params=' + string(params.?kind.orValue('<none>')) + ' ' + string(params.metadata.name) + ' ' + string(params.metadata.?annotations.?tier.orValue('<none>')) +
	' variables=' + variables.transition`

// renderConnect shows what a CONNECT's variables hold.
const renderConnect = `'operation=' + request.operation + ' name=' + request.name + ' namespace=' + request.namespace +
	' resource=' + request.resource.group + '/' + request.resource.version + '/' + request.resource.resource +
	' subResource=' + request.?subResource.orValue('') + ' kind=' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind +
	' user=' + request.userInfo.username + ' dryRun=' + string(request.dryRun) +
	' options=' + (request.options == null ? 'null' : 'set') +
	' object=' + string(object.?apiVersion.orValue('<none>')) + '/' + string(object.?kind.orValue('<none>')) +
	' command=' + object.?command.orValue([]).join(' ') + ' stdout=' + string(object.?stdout.orValue('<none>')) +
	' oldObject=' + (oldObject == null ? 'null' : 'set') + ' namespaceObject=' + namespaceObject.metadata.name`

func configMapOperations(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.NamedRuleWithOperations {
	return []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}}
}

var _ = harness.Describe(policyCELVariables, func(f *harness.Framework) {
	ginkgo.It("CREATE, UPDATE and DELETE: object, oldObject, request, namespaceObject, params and variables hold the request's values", func(ctx ginkgo.SpecContext) {
		admin := speckit.WhoAmI(ctx, f.Client).Username
		configMaps := f.Client.CoreV1().ConfigMaps(f.Namespace)
		// The stored object exists before the policy, which would deny its creation.
		stored := speckit.ConfigMap(f, "stored", map[string]string{"phase": "stored"})
		stored.Labels = map[string]string{"render": "yes"}
		stored, err := configMaps.Create(ctx, stored, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		param := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "cel-params", Annotations: map[string]string{"tier": "gold"}}}
		_, err = f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, param, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			ParamKind:        speckit.ParamKindSA,
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: configMapOperations(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete)},
			Variables: []admissionregistrationv1.Variable{
				{Name: "phase", Expression: "object == null ? 'none' : string(object.data.phase)"},
				{Name: "transition", Expression: "(oldObject == null ? 'none' : string(oldObject.data.phase)) + '->' + variables.phase"},
			},
			// Every request denies, rendering the variables, but for a
			// real DELETE (which the namespace's deletion makes too).
			Validations: []admissionregistrationv1.Validation{{Expression: "request.operation == 'DELETE' && !request.dryRun", MessageExpression: renderRequest}},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "objects", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: speckit.DenyAction(),
			ParamRef:          &admissionregistrationv1.ParamRef{Name: param.Name, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
			MatchResources:    &admissionregistrationv1.MatchResources{ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"render": "yes"}}},
		})).To(gomega.Succeed())

		rendered := func(operation, name, user, dryRun, options, object, oldObject, transition string) string {
			return speckit.VAPDenied(f, "objects", fmt.Sprintf("operation=%s name=%s namespace=%s resource=/v1/configmaps subResource= kind=/v1/ConfigMap "+
				"requestResource=configmaps requestKind=ConfigMap user=%s dryRun=%s options=%s object=%s oldObject=%s "+
				"namespaceObject=%s Active params=ServiceAccount cel-params gold variables=%s",
				operation, name, f.Namespace, user, dryRun, options, object, oldObject, f.Namespace, transition))
		}
		created := speckit.ConfigMap(f, "created", map[string]string{"phase": "created"})
		created.Labels = map[string]string{"render": "yes"}
		_, err = configMaps.Create(ctx, created, metav1.CreateOptions{FieldManager: "cel-create"})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, rendered("CREATE", "created", admin, "false",
			"CreateOptions fieldManager=cel-create propagationPolicy= dryRun=", "v1/ConfigMap created phase created", "null", "none->created"))

		update := stored.DeepCopy()
		update.Data["phase"] = "updated"
		_, err = configMaps.Update(ctx, update, metav1.UpdateOptions{FieldManager: "cel-update"})
		storedRV := "resourceVersion " + stored.ResourceVersion
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, rendered("UPDATE", "stored", admin, "false",
			"UpdateOptions fieldManager=cel-update propagationPolicy= dryRun=", "v1/ConfigMap stored phase updated",
			"v1/ConfigMap stored phase stored "+storedRV, "stored->updated"))

		err = configMaps.Delete(ctx, "stored", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}, PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, rendered("DELETE", "stored", admin, "true",
			"DeleteOptions fieldManager= propagationPolicy=Foreground dryRun=All", "null",
			"v1/ConfigMap stored phase stored "+storedRV, "stored->none"))

		// The expression is true for a real DELETE: admitted.
		gomega.Expect(configMaps.Delete(ctx, "stored", metav1.DeleteOptions{})).To(gomega.Succeed(), "a DELETE that is no dry run must be admitted")
		_, err = configMaps.Get(ctx, "stored", metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "the admitted DELETE must delete the object, got %v", err)
	})

	ginkgo.It("CONNECT on pods/exec: object is the PodExecOptions, oldObject is null", func(ctx ginkgo.SpecContext) {
		admin := speckit.WhoAmI(ctx, f.Client).Username
		// A gated pod is never scheduled, so it touches no node.
		pod := speckit.PendingPod(f.Namespace, "exec-target")
		pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "admission-conformance.io/never"}}
		_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		// A CONNECT's object (PodExecOptions) has no labels, so an object
		// selector would exclude it: this policy and binding select by
		// namespace alone (the probes are creates of configmaps, which they
		// do not match).
		inNamespace := &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}}
		name := speckit.PolicyName(f, "connect")
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{NamespaceSelector: inNamespace,
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: speckit.OperationRule("pods/exec", admissionregistrationv1.Connect)[0]}}},
				Validations: []admissionregistrationv1.Validation{{Expression: "false", MessageExpression: renderConnect}},
			}})).To(gomega.Succeed())
		bindings := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
		_, err = bindings.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: speckit.DenyAction(),
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: inNamespace}},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, bindings.Delete, name)
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())

		err = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("pods").Name(pod.Name).
			SubResource("exec").Param("command", "true").Param("stdout", "true").Do(ctx).Error()
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "connect", fmt.Sprintf(
			"operation=CONNECT name=exec-target namespace=%s resource=/v1/pods subResource=exec kind=/v1/PodExecOptions user=%s dryRun=false "+
				"options=null object=v1/PodExecOptions command=true stdout=true oldObject=null namespaceObject=%s", f.Namespace, admin, f.Namespace)))
	})

	ginkgo.It("authorizer checks what the requesting user may do; authorizer.requestResource is the request's own resource", func(ctx ginkgo.SpecContext) {
		// The admin is a member of system:masters by impersonation, not the
		// harness's own identity: an in-cluster run's service account may
		// not get /metrics, and the checks are about what the requester may
		// do, whoever runs the harness. First, so a run without that right
		// reports the case not supported before it creates anything.
		admin := impersonating(ctx, f, identity.ClusterAdmin)
		limited := limitedClient(ctx, f)
		// Each validation is true for what the requester may do; they are
		// ordered so each request below fails exactly one.
		configMapsHere := "authorizer.group('').resource('configmaps').namespace(request.namespace)"
		// An authorization check costs 350000, a third of an expression's
		// limit: the decision is a variable, evaluated once.
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Variables:     []admissionregistrationv1.Variable{{Name: "createHere", Expression: configMapsHere + ".check('create')"}},
			Validations: []admissionregistrationv1.Validation{
				{Expression: "variables.createHere.allowed() && !variables.createHere.errored() && variables.createHere.error() == ''",
					Message: "authorizer: the requester may not create configmaps in its namespace, or the check errored"},
				{Expression: configMapsHere + ".name(request.name).check('get').allowed() == authorizer.requestResource.check('get').allowed()",
					Message: "authorizer name(request.name) and authorizer.requestResource disagree"},
				{Expression: "authorizer.requestResource.check('get').allowed()",
					Message: "authorizer.requestResource: the requester may not get the object it creates"},
				{Expression: "!authorizer.serviceAccount(request.namespace, string(object.data.sa)).group('').resource('configmaps').namespace(request.namespace).check('create').allowed()",
					Message: "authorizer.serviceAccount: the named service account may create configmaps"},
				{Expression: "authorizer.serviceAccount(request.namespace, '" + celGrantedSA + "').group('').resource('configmaps').namespace(request.namespace).check('create').reason() == " +
					"'RBAC: allowed by RoleBinding \"" + celAuthzRole + "/' + request.namespace + '\" of Role \"" + celAuthzRole + "\" to ServiceAccount \"" + celGrantedSA + "/' + request.namespace + '\"'",
					Message: "authorizer reason: not the RBAC rule that allows service account " + celGrantedSA},
				{Expression: "!authorizer.serviceAccount(request.namespace, '" + celGrantedSA + "').group('').resource('configmaps').subresource('status').namespace(request.namespace).check('create').allowed()",
					Message: "authorizer subresource: service account " + celGrantedSA + " may create configmaps/status"},
				{Expression: "authorizer.path('/metrics').check('get').allowed()",
					Message: "authorizer path: the requester may not get /metrics"},
				{Expression: "authorizer.group('').resource('configmaps').namespace('kube-system').check('create').allowed()",
					Message: "authorizer: the requester may not create configmaps in kube-system"},
			},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "authz", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		create := func(client kubernetes.Interface, name, sa string) error {
			_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, name, map[string]string{"sa": sa}), metav1.CreateOptions{})
			return err
		}
		gomega.Expect(create(admin, "admin-nobody", "nobody")).To(gomega.Succeed(),
			"the cluster admin may do everything checked, and service account nobody may not create configmaps: admitted")
		speckit.ExpectPolicyDenial(create(admin, "admin-granted", celGrantedSA), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "authz", "authorizer.serviceAccount: the named service account may create configmaps"))
		speckit.ExpectPolicyDenial(create(limited, "other", "nobody"), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "authz", "authorizer.requestResource: the requester may not get the object it creates"))
		speckit.ExpectPolicyDenial(create(limited, "named", "nobody"), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "authz", "authorizer path: the requester may not get /metrics"))
	})

	ginkgo.It("authorizer fieldSelector and labelSelector reach the authorizer: a node lists its own pods only with its spec.nodeName field selector", func(ctx ginkgo.SpecContext) {
		node := impersonating(ctx, f, identity.Node) // first: without the right, nothing is created
		pods := "authorizer.group('').resource('pods')"
		// The Node authorizer's reason, as the apiserver's union of
		// authorizers passes it on: from 1.37 prefixed with the authorizer's
		// name (k8s.io/apiserver pkg/authorization/union NamedAuthorizer,
		// "node: ..."), before 1.37 alone.
		nodeReason := "can only list/watch pods with spec.nodeName field selector"
		v, err := version.ParseGeneric(f.Env.KubernetesVersion)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the cluster's version %q", f.Env.KubernetesVersion)
		if v.AtLeast(version.MajorMinor(1, 37)) {
			nodeReason = "node: " + nodeReason
		}
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"events"}}}}}},
			Validations: []admissionregistrationv1.Validation{
				{Expression: pods + ".fieldSelector('spec.nodeName=' + string(object.message)).check('list').allowed()",
					Message: "fieldSelector: the requester may not list the pods of the node the event names"},
				{Expression: "!" + pods + ".check('list').allowed()",
					Message: "the requester may list pods without a field selector"},
				{Expression: pods + ".fieldSelector('spec.nodeName=" + celNode + "').labelSelector('app=x').check('list').allowed() && " +
					"!" + pods + ".labelSelector('spec.nodeName=" + celNode + "').check('list').allowed()",
					Message: "labelSelector: a label selector is not a field selector, and does not undo one"},
				{Expression: pods + ".check('list').reason() == '" + nodeReason + "'",
					Message: "authorizer reason: not the Node authorizer's"},
			},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "selectors", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		event := func(client kubernetes.Interface, name, nodeName string) error {
			_, err := client.CoreV1().Events(f.Namespace).Create(ctx, &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: name},
				InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: f.Namespace, Name: "subject"},
				Reason:         "Checked", Message: nodeName, Type: corev1.EventTypeNormal,
			}, metav1.CreateOptions{})
			return err
		}
		gomega.Expect(event(node, "own-node", celNode)).To(gomega.Succeed(),
			"node "+celNode+" may list pods with fieldSelector spec.nodeName="+celNode+" only: admitted")
		speckit.ExpectPolicyDenial(event(node, "other-node", "other-node"), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "selectors", "fieldSelector: the requester may not list the pods of the node the event names"))
		speckit.ExpectPolicyDenial(event(f.Client, "admin", celNode), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "selectors", "the requester may list pods without a field selector"))
	})

	ginkgo.It("webhook matchConditions read object, oldObject, request and authorizer", func(ctx ginkgo.SpecContext) {
		admin := speckit.WhoAmI(ctx, f.Client).Username
		limited := limitedClient(ctx, f)
		rules := speckit.OperationRule("configmaps", admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete)
		hook := func(name, expression string) harness.Hook {
			return harness.Hook{Name: name, Behaviour: speckit.Allow(), Rules: rules,
				MatchConditions: []admissionregistrationv1.MatchCondition{{Name: name, Expression: expression}}}
		}
		reg, err := f.RegisterValidating(ctx, "variables",
			hook("object", "oldObject == null && object.data.phase == 'created'"),
			hook("old-object", "oldObject != null && object != null && oldObject.data.phase == 'created' && object.data.phase == 'updated'"),
			hook("deleted", "object == null && oldObject.data.phase == 'updated'"),
			hook("request", fmt.Sprintf("request.operation == 'CREATE' && request.userInfo.username == '%s' && request.namespace == '%s' && "+
				"request.name == 'subject' && request.resource.resource == 'configmaps' && request.kind.kind == 'ConfigMap' && !request.dryRun", admin, f.Namespace)),
			hook("authorizer", "authorizer.group('').resource('configmaps').namespace('kube-system').check('create').allowed()"),
			hook("request-resource", "authorizer.requestResource.check('get').allowed()"),
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		configMaps := f.Client.CoreV1().ConfigMaps(f.Namespace)
		cm, err := configMaps.Create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"phase": "created"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm.Data["phase"] = "updated"
		_, err = configMaps.Update(ctx, cm, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(configMaps.Delete(ctx, cm.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		for _, name := range []string{"named", "other"} {
			_, err := limited.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, name, map[string]string{"phase": "limited"}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"create":        {Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: "subject"},
			"update":        {Operation: "UPDATE", Resource: "configmaps", Namespace: f.Namespace, Name: "subject"},
			"delete":        {Operation: "DELETE", Resource: "configmaps", Namespace: f.Namespace, Name: "subject"},
			"limited-named": {Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: "named"},
			"limited-other": {Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: "other"},
		}, map[string][]string{
			"object":           {"create"},
			"old-object":       {"update"},
			"deleted":          {"delete"},
			"request":          {"create"},
			"authorizer":       {"create", "update", "delete"},
			"request-resource": {"create", "update", "delete", "limited-named"},
		})
	})
})
