package policycel

import (
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyCELLibraries = spec.Spec{
	ShortName: "PolicyCELLibraries",
	Suite:     "webhooks",
	Description: "Every function library of the admission CEL environment (the CEL standard library, optional types, " +
		"kubernetes.urls, regex, lists, quantity, net.ip, net.cidr, format and semver, cel ext strings, sets, lists and " +
		"two-variable comprehensions) gives its documented values in ValidatingAdmissionPolicy validations; a policy " +
		"using what the environment of new expressions lacks (invalid literals, jsonpatch outside mutations, and on " +
		"1.37 the kubernetes.lists includes of compatibility version 1.37) is refused when created.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.validations[].expression; " +
		"k8s.io/apiserver v0.37.2 pkg/cel/environment/base.go baseOpts",
}

var mutatingPolicyCELLibraries = spec.Spec{
	ShortName: "MutatingPolicyCELLibraries",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy's JSONPatch expressions have kubernetes.jsonpatch: jsonpatch.escapeKey " +
		"escapes '~' then '/' so a key holding them can be a JSON Pointer path segment.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.spec.mutations[].jsonPatch.expression",
}

// celFamily is one library family of the admission CEL environment: its
// expression reads data[key] alone, is true for good and false for bad.
type celFamily struct {
	name, key, good, bad, expression string
}

var celFamilies = []celFamily{
	{name: "CEL standard library", key: "standard", good: "2024-02-29T13:45:30Z", bad: "2024-02-29T13:45:31Z", expression: `
		size(object.data.standard) == 20 && object.data.standard.startsWith('2024-') && object.data.standard.endsWith('Z') &&
		object.data.standard.contains('T13:') && object.data.standard.matches('^[0-9]{4}-[0-9]{2}-[0-9]{2}T') &&
		object.data.standard.matches(['^[0-9]{4}-'][0]) && !object.data.standard.matches(['^[0-9]{5}'][0]) &&
		timestamp(object.data.standard).getFullYear() == 2024 && timestamp(object.data.standard).getMonth() == 1 &&
		timestamp(object.data.standard).getDate() == 29 && timestamp(object.data.standard).getDayOfMonth() == 28 &&
		timestamp(object.data.standard).getDayOfWeek() == 4 && timestamp(object.data.standard).getDayOfYear() == 59 &&
		timestamp(object.data.standard).getHours() == 13 && timestamp(object.data.standard).getHours('+05:30') == 19 &&
		timestamp(object.data.standard).getMinutes() == 45 && timestamp(object.data.standard).getSeconds() == 30 &&
		timestamp(object.data.standard).getMilliseconds() == 0 && timestamp('2024-02-29T13:45:30.250Z').getMilliseconds() == 250 &&
		timestamp(object.data.standard) + duration('36h') == timestamp('2024-03-02T01:45:30Z') &&
		timestamp(object.data.standard) - timestamp('2024-02-28T13:45:30Z') == duration('24h') &&
		int(timestamp(object.data.standard)) == 1709214330 && string(timestamp(object.data.standard)) == '2024-02-29T13:45:30Z' &&
		duration('1h30m').getMinutes() == 90 && duration('1h30m').getSeconds() == 5400 && string(duration('90s')) == '90s' &&
		int(object.data.standard.substring(0, 4)) + 1 == 2025 && string(7) + 'x' == '7x' && double('2.5') * 2.0 == 5.0 &&
		uint(7) % 4u == 3u && 7 / 2 == 3 && -7 % 3 == -1 && 1 < 1.5 && 2u > 1 && 3.0 > 2 &&
		bytes('2024') == b'2024' && bool('true') && !bool('false') && size(b'abc') == 3 && type(object.data.standard) == string && dyn(1) == 1 &&
		[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1) == [2, 3] && [1, 2, 3].map(x, x > 1, x * 10) == [20, 30] &&
		[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(x, x == 3) && [1, 2, 3].exists_one(x, x > 2) && ![1, 2, 3].exists_one(x, x > 1) &&
		2 in [1, 2] && 'standard' in object.data && has(object.data.standard) && !has(object.data.absent) &&
		{'a': 1, 'b': 2}.filter(k, k != 'a') == ['b'] && {'a': 1, 'b': 2}.all(k, k in ['a', 'b']) && size({'a': 1}) == 1 && size([1, 2]) == 2 &&
		(object.data.standard > '2024' ? 'later' : 'earlier') == 'later' && [1, 2] + [3] == [1, 2, 3] && 'ab' + 'c' == 'abc'`},

	{name: "optional types", key: "optional", good: "present", bad: "presence", expression: `
		object.data[?'optional'].orValue('') == 'present' && object.data[?'absent'].orValue('fallback') == 'fallback' &&
		object.data[?'optional'].hasValue() && !object.data[?'absent'].hasValue() && object.data[?'optional'].value() == 'present' &&
		object.?metadata.?labels.?absent.orValue('none') == 'none' && object.?data.?optional.orValue('') == 'present' &&
		optional.of(object.data.optional) == optional.of('present') && optional.none() != optional.of('') &&
		optional.none().or(object.data[?'optional']).value() == 'present' && optional.ofNonZeroValue('').hasValue() == false &&
		object.data[?'optional'].optMap(v, v + '!').value() == 'present!' &&
		object.data[?'optional'].optFlatMap(v, size(v) > 3 ? optional.of(size(v)) : optional.none()).value() == 7 &&
		[string(object.data.optional), 'b'].first().value() == 'present' && ['a', string(object.data.optional)].last() == optional.of('present') &&
		[].first() == optional.none() && [optional.of(1), optional.none()].unwrapOpt() == [1] && optional.unwrap([object.data[?'optional'], object.data[?'absent']]) == ['present'] &&
		[?object.?data.?optional, ?object.?data.?absent] == ['present'] &&
		{?'k': object.?data.?optional, ?'n': object.?data.?absent} == {'k': 'present'}`},

	{name: "kubernetes.urls", key: "url", good: "https://user@example.com:8443/a%20b/c?k=v1&k=v2&x=y", bad: "https://user@example.com:9443/a%20b/c?k=v1&k=v2&x=y", expression: `
		isURL(object.data.url) && !isURL('../relative') && isURL('/absolute') &&
		url(object.data.url).getScheme() == 'https' && url(object.data.url).getHost() == 'example.com:8443' &&
		url(object.data.url).getHostname() == 'example.com' && url(object.data.url).getPort() == '8443' &&
		url(object.data.url).getEscapedPath() == '/a%20b/c' && url(object.data.url).getQuery() == {'k': ['v1', 'v2'], 'x': ['y']} &&
		url('https://[::1]:80/').getHostname() == '::1' && url('https://[::1]:80/').getHost() == '[::1]:80' &&
		url('/absolute').getScheme() == '' && url('/absolute').getQuery() == {}`},

	{name: "kubernetes.regex", key: "regex", good: "abc 123 def 4567", bad: "abc 124 def 4567", expression: `
		object.data.regex.find('[0-9]+') == '123' && object.data.regex.find('xyz') == '' &&
		object.data.regex.findAll('[0-9]+') == ['123', '4567'] && object.data.regex.findAll('[0-9]+', 1) == ['123'] &&
		object.data.regex.findAll('[a-z]+', -1) == ['abc', 'def'] && object.data.regex.findAll('xyz') == [] &&
		object.data.regex.find(['[0-9]+'][0]) == '123' && object.data.regex.findAll(['[0-9]+'][0]) == ['123', '4567'] &&
		object.data.regex.findAll(['[0-9]+'][0], 1) == ['123']`},

	{name: "kubernetes.lists", key: "lists", good: "2", bad: "4", expression: `
		[1, int(object.data.lists), int(object.data.lists), 3].isSorted() && !['b', 'a'].isSorted() &&
		[1, int(object.data.lists), int(object.data.lists), 3].sum() == 8 && [1.5, 2.5].sum() == 4.0 &&
		[duration('1m'), duration('1s')].sum() == duration('61s') &&
		[1, int(object.data.lists), int(object.data.lists), 3].min() == 1 && [1, int(object.data.lists), int(object.data.lists), 3].max() == 3 &&
		['b', 'c', 'a'].min() == 'a' && [1, int(object.data.lists), int(object.data.lists), 3].indexOf(2) == 1 &&
		[1, int(object.data.lists), int(object.data.lists), 3].lastIndexOf(2) == 2 && [1, 3].indexOf(2) == -1 && [1, 3].lastIndexOf(2) == -1`},

	{name: "kubernetes.quantity", key: "quantity", good: "1536Mi", bad: "1536M", expression: `
		isQuantity(object.data.quantity) && !isQuantity('200K') && quantity(object.data.quantity).isInteger() &&
		quantity(object.data.quantity).asInteger() == 1610612736 && quantity(object.data.quantity).asApproximateFloat() == 1610612736.0 &&
		quantity(object.data.quantity).add(quantity('512Mi')) == quantity('2Gi') && quantity(object.data.quantity).add(1).asInteger() == 1610612737 &&
		quantity(object.data.quantity).sub(quantity('512Mi')) == quantity('1Gi') && quantity(object.data.quantity).sub(1).asInteger() == 1610612735 &&
		quantity(object.data.quantity).compareTo(quantity('1536Mi')) == 0 && quantity(object.data.quantity).compareTo(quantity('1G')) == 1 &&
		quantity('1G').compareTo(quantity(object.data.quantity)) == -1 &&
		quantity(object.data.quantity).isGreaterThan(quantity('1G')) && !quantity(object.data.quantity).isGreaterThan(quantity('2G')) &&
		quantity(object.data.quantity).isLessThan(quantity('2G')) && !quantity(object.data.quantity).isLessThan(quantity('1G')) &&
		!quantity(object.data.quantity).isGreaterThan(quantity('1.5Gi')) && !quantity(object.data.quantity).isLessThan(quantity('1.5Gi')) &&
		sign(quantity(object.data.quantity)) == 1 && sign(quantity('-1m')) == -1 && sign(quantity(object.data.quantity).sub(quantity('1536Mi'))) == 0 &&
		!quantity('0.5').isInteger()`},

	{name: "kubernetes.net.ip", key: "ip", good: "192.168.10.20", bad: "192.168.10.21", expression: `
		isIP(object.data.ip) && !isIP('127.0.0.256') && !isIP('::ffff:1.2.3.4') && string(ip(object.data.ip)) == '192.168.10.20' &&
		ip(object.data.ip).family() == 4 && ip('2001:db8::abcd').family() == 6 &&
		!ip(object.data.ip).isLoopback() && ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() &&
		!ip(object.data.ip).isUnspecified() && ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() &&
		ip(object.data.ip).isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() &&
		!ip(object.data.ip).isLinkLocalUnicast() && ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() &&
		!ip(object.data.ip).isLinkLocalMulticast() && ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() &&
		ip.isCanonical('2001:db8::abcd') && !ip.isCanonical('2001:DB8::ABCD') && ip(object.data.ip) == ip('192.168.10.20')`},

	{name: "kubernetes.net.cidr", key: "cidr", good: "10.1.0.0/16", bad: "10.1.0.0/24", expression: `
		isCIDR(object.data.cidr) && !isCIDR('10.1.0.0/33') && string(cidr(object.data.cidr)) == '10.1.0.0/16' &&
		cidr(object.data.cidr).prefixLength() == 16 && cidr('::1/128').prefixLength() == 128 &&
		cidr(object.data.cidr).containsIP(ip('10.1.200.3')) && cidr(object.data.cidr).containsIP('10.1.2.3') && !cidr(object.data.cidr).containsIP('10.2.0.1') &&
		cidr(object.data.cidr).containsIP('10.1.255.255') && !cidr(object.data.cidr).containsIP('10.0.255.255') && cidr(object.data.cidr).containsCIDR(object.data.cidr) &&
		cidr(object.data.cidr).containsCIDR('10.1.128.0/17') && cidr(object.data.cidr).containsCIDR(cidr('10.1.4.0/24')) && !cidr(object.data.cidr).containsCIDR('10.0.0.0/8') &&
		cidr('10.1.2.3/16').masked() == cidr(object.data.cidr) && string(cidr(object.data.cidr).ip()) == '10.1.0.0' &&
		cidr('10.1.2.3/16').ip() == ip('10.1.2.3') && cidr('::1/128').ip().family() == 6`},

	{name: "kubernetes.format", key: "format", good: "my-label", bad: "My_Label", expression: `
		format.dns1123Label().validate(object.data.format) == optional.none() &&
		format.named('dns1123Label').value().validate(object.data.format) == optional.none() &&
		format.dns1123Label().validate('My_Label') == optional.of(['a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')']) &&
		!format.named('noSuchFormat').hasValue() && format.dns1035Label().validate('1abc').hasValue() &&
		format.dns1123Subdomain().validate('a.example.com') == optional.none() && format.qualifiedName().validate('example.com/name') == optional.none() &&
		format.labelValue().validate('a b').hasValue() && format.dns1123LabelPrefix().validate('my-prefix-') == optional.none() &&
		format.dns1123SubdomainPrefix().validate('a.example-') == optional.none() && format.dns1035LabelPrefix().validate('1abc').hasValue() &&
		format.dns1035LabelPrefix().validate('abc-') == optional.none() && format.uuid().validate('123e4567-e89b-12d3-a456-426614174000') == optional.none() &&
		format.uri().validate('http://example.com') == optional.none() && format.byte().validate('aGVsbG8=') == optional.none() &&
		format.date().validate('2024-02-30').hasValue() && format.datetime().validate('2024-02-29T13:45:30Z') == optional.none()`},

	{name: "kubernetes.semver", key: "semver", good: "1.2.3-rc.1", bad: "1.3.3-rc.1", expression: `
		isSemver(object.data.semver) && !isSemver('v1.0') && isSemver('v1.0', true) &&
		semver(object.data.semver).major() == 1 && semver(object.data.semver).minor() == 2 && semver(object.data.semver).patch() == 3 &&
		semver(object.data.semver).compareTo(semver('1.2.3')) == -1 && semver(object.data.semver).compareTo(semver('1.2.3-rc.1')) == 0 &&
		semver('1.2.3').compareTo(semver(object.data.semver)) == 1 &&
		semver(object.data.semver).isLessThan(semver('1.2.3')) && semver(object.data.semver).isGreaterThan(semver('1.2.2')) &&
		!semver(object.data.semver).isGreaterThan(semver('1.2.3')) &&
		!semver(object.data.semver).isGreaterThan(semver('1.2.3-rc.1')) && !semver(object.data.semver).isLessThan(semver('1.2.3-rc.1')) && semver('v01.02', true) == semver('1.2.0')`},

	{name: "cel ext strings", key: "strings", good: "  Hello, World  ", bad: "  Hello, World! ", expression: `
		object.data.strings.trim() == 'Hello, World' && object.data.strings.trim().charAt(4) == 'o' &&
		object.data.strings.trim().indexOf('o') == 4 && object.data.strings.trim().indexOf('o', 5) == 8 &&
		object.data.strings.trim().lastIndexOf('o') == 8 && object.data.strings.trim().lastIndexOf('o', 7) == 4 &&
		object.data.strings.trim().lowerAscii() == 'hello, world' && object.data.strings.trim().upperAscii() == 'HELLO, WORLD' &&
		object.data.strings.trim().replace('o', '0') == 'Hell0, W0rld' && object.data.strings.trim().replace('o', '0', 1) == 'Hell0, World' &&
		object.data.strings.trim().split(', ') == ['Hello', 'World'] && object.data.strings.trim().split('l', 2) == ['He', 'lo, World'] &&
		object.data.strings.trim().substring(7) == 'World' && object.data.strings.trim().substring(0, 5) == 'Hello' &&
		object.data.strings.trim().split(', ').join() == 'HelloWorld' && object.data.strings.trim().split(', ').join('+') == 'Hello+World' &&
		strings.quote(object.data.strings.trim()) == '"Hello, World"' &&
		'%s has %d characters'.format([object.data.strings.trim(), size(object.data.strings.trim())]) == 'Hello, World has 12 characters'`},

	{name: "cel ext sets", key: "sets", good: "b", bad: "z", expression: `
		sets.contains(['a', string(object.data.sets), 'c'], ['b', 'c']) && !sets.contains(['a', string(object.data.sets)], ['d']) &&
		sets.equivalent(['a', 'b', 'b'], [string(object.data.sets), 'a']) && !sets.equivalent(['a'], [string(object.data.sets)]) &&
		sets.intersects(['x', string(object.data.sets)], ['b', 'y']) && !sets.intersects([string(object.data.sets)], ['y'])`},

	{name: "two-variable comprehensions", key: "comprehensions", good: "3", bad: "4", expression: `
		[10, 20, 30].all(i, v, v == (i + 1) * 10) && [10, 20, 30].exists(i, v, i == 2 && v == int(object.data.comprehensions) * 10) &&
		{'a': 1, 'b': 2}.existsOne(k, v, v == 2) && !{'a': 2, 'b': 2}.exists_one(k, v, v == 2) &&
		{'a': 1, 'b': int(object.data.comprehensions)}.all(k, v, k == 'a' || v == 3) &&
		[1, 2, 3].transformList(i, v, v * int(object.data.comprehensions)) == [3, 6, 9] &&
		[1, 2, 3].transformList(i, v, i > 0, v + i) == [3, 5] &&
		{'a': 1, 'b': 2}.transformMap(k, v, v * int(object.data.comprehensions)) == {'a': 3, 'b': 6} &&
		{'a': 1, 'b': 2}.transformMap(k, v, v > 1, k + object.data.comprehensions) == {'b': 'b3'} &&
		{'a': 1}.transformMapEntry(k, v, {k + 'x': v + int(object.data.comprehensions)}) == {'ax': 4} &&
		['x', 'y'].transformMapEntry(i, v, {v: i}) == {'x': 0, 'y': 1}`},

	{name: "cel ext lists", key: "lists-ext", good: "3", bad: "5", expression: `
		[1, 2, int(object.data['lists-ext']), 4].slice(1, 3) == [2, 3] &&
		[[1, 2], [int(object.data['lists-ext'])], []].flatten() == [1, 2, 3] && [[[1], [2]], [[int(object.data['lists-ext'])]]].flatten(2) == [1, 2, 3] &&
		[int(object.data['lists-ext']), 1, 2].sort() == [1, 2, 3] && ['ccc', 'a', 'bb'].sortBy(s, size(s)) == ['a', 'bb', 'ccc'] &&
		[1, int(object.data['lists-ext']), 3, 1].distinct() == [1, 3] && [1, 2, int(object.data['lists-ext'])].reverse() == [3, 2, 1] &&
		lists.range(int(object.data['lists-ext'])) == [0, 1, 2] && lists.range(0) == []`},
}

// celFamilyMessage is the message of a family's validation.
func celFamilyMessage(fam celFamily) string {
	return "library " + fam.name + " gave an unexpected value"
}

var _ = harness.Describe(policyCELLibraries, func(f *harness.Framework) {
	for _, fam := range celFamilies {
		ginkgo.It(fam.name+": its functions give their documented values, true admits and false denies with the validation's message", func(ctx ginkgo.SpecContext) {
			s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				Validations:   []admissionregistrationv1.Validation{{Expression: strings.TrimSpace(fam.expression), Message: celFamilyMessage(fam)}},
			}
			gomega.Expect(speckit.VAPWith(ctx, f, "library", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
			cms := f.Client.CoreV1().ConfigMaps(f.Namespace)
			_, err := cms.Create(ctx, speckit.ConfigMap(f, "documented", map[string]string{fam.key: fam.good}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "every call of %s gives its documented value for data.%s=%q: the expression is true, the object admitted",
				fam.name, fam.key, fam.good)
			_, err = cms.Create(ctx, speckit.ConfigMap(f, "changed", map[string]string{fam.key: fam.bad}), metav1.CreateOptions{})
			speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "library", celFamilyMessage(fam)))
		})
	}

	ginkgo.It("literals the environment validates, and jsonpatch outside mutations, are refused when the policy is created", func(ctx ginkgo.SpecContext) {
		for expression, detail := range map[string]string{
			"duration('1x') > duration('0s')":                                       "invalid duration argument",
			"timestamp('2024-13-01T00:00:00Z') > timestamp('2024-01-01T00:00:00Z')": "invalid timestamp argument",
			"object.metadata.name.matches('(')":                                     "invalid matches argument",
			"size([1, 'a']) == 2":                                                   "expected type 'int' but found 'string'",
			"jsonpatch.escapeKey('a/b') == 'a~1b'":                                  "undeclared reference to 'jsonpatch'",
		} {
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "refused")},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: []admissionregistrationv1.Validation{{Expression: expression}}}}
			speckit.ExpectFieldInvalid(speckit.CreateVAP(ctx, f, p), "spec.validations[0].expression", detail)
		}
	})

	ginkgo.It("on 1.37, kubernetes.lists includes (compatibility version 1.37) is refused in new expressions: the compatibility version is 1.36", func(ctx ginkgo.SpecContext) {
		v, err := version.ParseGeneric(f.Env.KubernetesVersion)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the cluster's version %q", f.Env.KubernetesVersion)
		if v.Major() != 1 || v.Minor() != 37 {
			ginkgo.Skip(results.NotSupportedPrefix + "the apiserver is " + f.Env.KubernetesVersion + ", not 1.37: its environment of new expressions is not that of compatibility version 1.36")
		}
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "includes")},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: []admissionregistrationv1.Validation{{Expression: "[1, 2].includes(2)"}}}}
		speckit.ExpectFieldInvalid(speckit.CreateVAP(ctx, f, p), "spec.validations[0].expression", "undeclared reference to 'includes'")
		// The kubernetes.lists functions of compatibility version 1.36 are there.
		p.Spec.Validations[0].Expression = "[1, 2].indexOf(2) == 1"
		gomega.Expect(speckit.CreateVAP(ctx, f, p)).To(gomega.Succeed(), "kubernetes.lists indexOf is in the environment of new expressions")
	})
})

var _ = harness.Describe(mutatingPolicyCELLibraries, func(f *harness.Framework) {
	ginkgo.It("jsonpatch.escapeKey escapes '~' as '~0' and then '/' as '~1' in a JSONPatch path and value", func(ctx ginkgo.SpecContext) {
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Mutations: []mutatingpolicy.Mutation{speckit.JSONPatch(`[
				JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey(object.data.key), value: jsonpatch.escapeKey('~1/')},
				JSONPatch{op: 'add', path: '/metadata/annotations/plain', value: jsonpatch.escapeKey(object.data.plain)}
			]`)},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "escape", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		cm := speckit.ConfigMap(f, "escaped", map[string]string{"key": "example.com/from-data", "plain": "no-escapes"})
		cm.Annotations = map[string]string{"existing": "yes"}
		got, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the JSONPatch path escapes '/' in the key, so the patch applies")
		gomega.Expect(got.Annotations).To(gomega.Equal(map[string]string{"existing": "yes", "example.com/from-data": "~01~1", "plain": "no-escapes"}),
			"jsonpatch.escapeKey('example.com/from-data') must be the path segment of annotation example.com/from-data, "+
				"escapeKey('~1/') must be '~01~1' ('~' escaped before '/') and escapeKey('no-escapes') unchanged")
	})
})
