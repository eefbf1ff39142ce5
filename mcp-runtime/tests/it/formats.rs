//! Every string format of JSON Schema 2020-12 asserted, each by its RFC: a table of valid and
//! invalid samples per format (`per_format_samples`), then a differential run against an
//! independent implementation, the `jsonschema` crate with format assertion on, and for the two
//! internationalized formats (which jsonschema does not assert) Python's `idna` and
//! `email-validator` (`differential_against_jsonschema`): the samples and, for each, mutations of it (a character
//! dropped, doubled, swapped with its neighbour, or replaced by one of the characters that matter
//! to the grammars), every verdict compared. Where the two disagree, the case must be one of the
//! documented divergences below, each with the RFC text that decides it; anything else fails.
//! `cargo test --test it -- formats:: --nocapture` prints the figures.

use std::collections::BTreeMap;

use mcp_runtime::validate::string_conforms;
use serde_json::json;
use test_support::rng::Rng;

/// (format, valid samples, invalid samples).
#[rustfmt::skip]
const SAMPLES: &[(&str, &[&str], &[&str])] = &[
    ("email",
     &["joe.bloggs@example.com", "te~st@example.com", "~test@example.com", "test~@example.com",
       "te.s.t@example.com", "\"joe bloggs\"@example.com", "\"joe..bloggs\"@example.com",
       "\"joe@bloggs\"@example.com", "joe.bloggs@[127.0.0.1]", "joe.bloggs@[IPv6:::1]",
       "a+tag@sub.example.co.uk", "x@localhost", "!#$%&'*+-/=?^_`{|}~@example.org"],
     &["2962", "", "@example.com", "joe@", ".test@example.com", "test.@example.com",
       "te..st@example.com", "joe.bloggs@invalid=domain.com", "joe.bloggs@[127.0.0.300]",
       "joe bloggs@example.com", "joe@-example.com", "joe@example-.com", "joe@exa_mple.com",
       "\"unterminated@example.com", "jöe@example.com", "joe@exämple.com", "joe@example.com.",
       "a@b@example.com", "joe@[IPv6:1.2.3.4]"]),
    ("idn-email",
     &["실례@실례.테스트", "joe.bloggs@example.com", "jöe@exämple.com", "用户@例子.广告"],
     &["2962", "joe@", "jöe@ex_ample.com", "..@例子.广告", "joe@-例子.广告"]),
    ("hostname",
     &["www.example.com", "xn--4gbwdl.xn--wgbh1c", "a", "a1", "1a", "hostname",
       "a-b.c-d.e", "xn--ihqwcrb4cv8a8dqg056pqjye"],
     &["", ".", "-a-host-name-that-starts-with--", "not_a_valid_host_name",
       "a-vvvvvvvvvvvvvvvveeeeeeeeeeeeeeeerrrrrrrrrrrrrrrryyyyyyyyyyyyyyyy-long-host-name-component",
       "a.", ".a", "a..b", "host-", "ex ample.com", "exämple.com", "XN--aa---o47jg78q",
       "xn--X", "ab--cd.com", "-"]),
    ("idn-hostname",
     &["실례.테스트", "例子.广告", "xn--ihqwcrb4cv8a8dqg056pqjye", "example.com", "a",
       "\u{DF}", "\u{3C2}", "l\u{B7}l", "\u{3B1}\u{375}\u{3B1}", "\u{5D0}\u{5F3}\u{5D1}",
       "\u{30A2}\u{30FB}\u{30A2}", "\u{628}\u{660}\u{661}", "\u{6F0}\u{6F1}", "\u{915}\u{94D}\u{200D}\u{937}",
       "\u{915}\u{94D}\u{200C}\u{937}", "\u{4F8B}\u{5B50}\u{3002}\u{5E7F}\u{544A}"],
     &["", "\u{302E}\u{C2E4}\u{B840}.\u{D14C}\u{C2A4}\u{D2B8}", "\u{C2E4}\u{302E}\u{B840}.\u{D14C}\u{C2A4}\u{D2B8}",
       "-> $1.00 <--", "xn--X", "\u{640}\u{7FA}", "\u{3031}\u{3032}\u{3033}", "a\u{B7}l", "\u{B7}l", "l\u{B7}a",
       "l\u{B7}", "\u{3B1}\u{375}S", "\u{3B1}\u{375}", "A\u{5F3}\u{5D1}", "\u{5F3}\u{5D1}", "def\u{30FB}abc",
       "\u{30FB}", "\u{660}\u{6F0}", "\u{915}\u{200D}\u{937}", "\u{200D}", "Example\u{3002}", "a..b",
       "not_valid", "EXAMPLE.\u{FF23}\u{FF2F}\u{FF2D}", "\u{C4}.com", "\u{2615}.com"]),
    ("ipv4",
     &["192.168.0.1", "0.0.0.0", "255.255.255.255", "87.10.0.1"],
     &["127.0.0.0.1", "256.256.256.256", "127.0", "0x7f000001", "2130706433", "087.10.0.1",
       "1.2.3.4 ", "১২৭.0.0.1", "192.168.1.0/24"]),
    ("ipv6",
     &["::1", "::", "::abef", "1:d6::42", "1::d6:192.168.0.1", "::ffff:192.168.0.1",
       "2001:db8::8a2e:370:7334", "1:2:3:4:5:6:7:8", "fe80::a"],
     &["12345::", "::abcef", ":::", "1::2::3", "fe80::a%eth1", "1:2:3:4:5:6:7:8:9",
       "::ffff:192.168.0.256", "1:2:3:4:5:6:7", " ::1", "::১"]),
    ("uri",
     &["http://foo.bar/?baz=qux#quux", "http://foo.com/blah_(wikipedia)_blah#cite-1",
       "http://foo.bar/?q=Test%20URL-encoded%20stuff", "http://xn--nw2a.xn--j6w193g/",
       "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com", "http://223.255.255.254",
       "ftp://ftp.is.co.za/rfc/rfc1808.txt", "http://www.ietf.org/rfc/rfc2396.txt",
       "ldap://[2001:db8::7]/c=GB?objectClass?one", "mailto:John.Doe@example.com",
       "news:comp.infosystems.www.servers.unix", "tel:+1-816-555-1212",
       "telnet://192.0.2.16:80/", "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
       "http://[v7.fe80::a+en1]/", "a:", "http://example.com:/"],
     &["//foo.bar/?baz=qux#quux", "/abc", "\\\\WINDOWS\\fileshare", "abc", "http:// shouldfail.com",
       ":// should fail", "bar,baz:foo", "http://example.com/a b", "http://example.com/%zz",
       "http://[::1/", "http://[::1]x/", "http://example.com:8o/", "http://a@b@example.com/",
       "1http://example.com", "http://example.com/#a#b", "http://ex[ample.com/", "http://exämple.com/",
       "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334"]),
    ("uri-reference",
     &["http://foo.bar/?baz=qux#quux", "//foo.bar/?baz=qux#quux", "/abc", "abc", "#fragment",
       "", "?query", "a/b:c", "../x", "./a:b"],
     &["\\\\WINDOWS\\filename", "#frag\\ment", "a:b c", "http://[::1", "a b", "%", "x#a#b",
       "http://example.com/ä"]),
    ("iri",
     &["http://ƒøø.ßår/?∂éœ=πîx#πîüx", "http://ƒøø.com/blah_(wîkïpédiå)_blah#ßité-1",
       "http://ƒøø.ßår/?q=Test%20URL-encoded%20stuff", "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
       "http://[2001:0db8:85a3:0000:0000:8a2e:0370:7334]", "urn:ietf:rfc:2648"],
     &["http://2001:0db8:85a3:0000:0000:8a2e:0370:7334", "/abc", "\\\\WINDOWS\\filëshare",
       "âππ", "http://ex ample.com", "http://example.com/\u{FFFF}"]),
    ("iri-reference",
     &["http://ƒøø.ßår/?∂éœ=πîx#πîüx", "//ƒøø.ßår/?∂éœ=πîx#πîüx", "/âππ", "âππ", "#ƒrägmênt", ""],
     &["\\\\WINDOWS\\filëshare", "#ƒräg\\mênt", "a b", "%ä"]),
    ("uri-template",
     &["http://example.com/dictionary/{term:1}/{term}", "http://example.com/dictionary",
       "dictionary/{term:1}/{term}", "{+path}/here", "{?x,y,z*}", "{#var}", "{.a.b}",
       "{/list*}", "{;x,y}", "{&q}", "{=reserved}", "{!a,b}", "X{var:3}", "%41{v}", ""],
     &["http://example.com/dictionary/{term:1}/{term", "{}", "{a b}", "{var:0}", "{var:10000}",
       "{var:}", "{a,}", "{a..b}", "{=}", "{+}", "a'b", "}", "a{b}}", "a b", "%4", "{%zz}", "{a|b}", "<x>"]),
    ("uuid",
     &["2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
       "00000000-0000-0000-0000-000000000000", "98d80576-482e-427f-8434-7f86890ab222"],
     &["2eb8aa08-aa98-11ea-b4aa-73b441d1638", "2eb8aa08-aa98-11ea-73b441d16380",
       "2eb8aa08-aa98-11ea-b4ga-73b441d16380", "2eb8aa08aa9811eab4aa73b441d16380",
       "2eb8aa08aa98-11ea-b4aa73b441d16380", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
       "2eb8-aa08-aa98-11ea-b4aa73b44-1d16380"]),
    ("date",
     &["1963-06-19", "2020-01-31", "2020-02-29", "2000-02-29", "2020-04-30"],
     &["06/19/1963", "2020-01-32", "2021-02-29", "1900-02-29", "2020-04-31", "2020-13-01",
       "1998-1-20", "1998-01-1", "1998-13-01", "1998-04-31", "2020-02-30", "1963-06-1৪",
       "20230328", "2023-W01", "2023-W13-2", "2022W527"]),
    ("time",
     &["08:30:06Z", "23:59:60Z", "23:59:60+00:00", "01:29:60+01:30", "23:29:60-00:30",
       "08:30:06.283185Z", "08:30:06+00:20", "08:30:06-08:00", "08:30:06z"],
     &["008:030:006Z", "8:3:6Z", "8:0030:6Z", "22:59:60Z", "23:58:60+00:00", "23:59:60+01:00",
       "23:59:60+00:30", "24:00:00Z", "00:60:00Z", "00:00:61Z", "01:02:03+24:00",
       "01:02:03+00:60", "01:02:03Z+00:30", "08:30:06 PST", "01:01:01,1111", "12:00:00",
       "1২:00:00Z", "08:30:06.Z"]),
    ("date-time",
     &["1963-06-19T08:30:06.283185Z", "1963-06-19T08:30:06Z", "1937-01-01T12:00:27.87+00:20",
       "1990-12-31T15:59:50.123-08:00", "1998-12-31T23:59:60Z", "1998-12-31T15:59:60.123-08:00",
       "1963-06-19t08:30:06.283185z"],
     &["1998-12-31T23:59:61Z", "1998-12-31T23:58:60Z", "1998-12-31T22:59:60Z",
       "1990-02-31T15:59:59.123-08:00", "1990-12-31T15:59:59-24:00", "06/19/1963 08:30:06 PST",
       "2013-350T01:01:01", "1963-06-1৪T00:00:00Z", "1963-06-11T0৪:00:00Z",
       "1963-06-19 08:30:06Z", "1963-06-19T08:30:06"]),
    ("duration",
     &["P4DT12H30M5S", "P4Y", "PT0S", "P0D", "P1M", "PT1M", "PT36H", "P1DT12H", "P2W"],
     &["PT1D", "P", "P1YT", "PT", "P2D1Y", "P1D2H", "P2S", "P1Y2W", "P１", "4DT12H30M5S",
       "P1.5D", "-P1D", "P1Y3D", "PT1H3S"]),
    ("json-pointer",
     &["/foo/bar~0/baz~1/%a", "/foo/bar", "", "/", "/foo//bar", "/~0~1", "/a~1b", "/ ",
       "/foo/0", "/foo/-"],
     &["/foo/bar~", "#", "#/", "#a", "/~0~", "/~0/~", "/~2", "/~-1", "/~~", "a", "0", "a/a"]),
    ("relative-json-pointer",
     &["1", "0/foo/bar", "2/0/baz/1/zip", "0#", "120/foo/bar", "0/", "3/~0"],
     &["/foo/bar", "-1/foo/bar", "+1/foo/bar", "0##", "01/a", "01#", "", "1+1", "a", "0 #", "0/~2"]),
    ("regex",
     &["([abc])+\\s+$", "^[a-z]+$", "\\d{2,3}", "(?<name>x)\\k<name>", "", "a|b", "\\p{L}"],
     &["^(abc]", "(", "[a-", "a{2,1}", "*a", "\\", "(?<n>x)(?<n>y)", "\\p{Nope}", "\\a"]),
];

#[test]
fn per_format_samples() {
    let mut wrong = Vec::new();
    let mut count = 0;
    for (format, valid, invalid) in SAMPLES {
        for (samples, expected) in [(*valid, true), (*invalid, false)] {
            for s in samples {
                count += 1;
                if string_conforms(format, s) != Some(expected) {
                    wrong.push(format!("{format}: {s:?} should be {}", verdict(expected)));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {count} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(SAMPLES.len(), 19, "every 2020-12 format has samples");
}

fn verdict(valid: bool) -> &'static str {
    if valid { "valid" } else { "invalid" }
}

/// Characters the grammars care about, for replacements.
const ALPHABET: &[char] = &[
    'a', 'Z', '0', '9', '-', '.', '_', '~', ':', '/', '?', '#', '[', ']', '@', '!', '$', '&', '\'',
    '(', ')', '*', '+', ',', ';', '=', '%', ' ', '"', '\\', '{', '}', '<', '>', 'T', 'Z', 'P', 'W',
    'ä', '例', '·', 'x', 'n', '|', '^',
];

/// Mutations of `s`: each drops, doubles, swaps or replaces one character.
fn mutations(s: &str, rng: &mut Rng, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    for _ in 0..n {
        let mut c = chars.clone();
        match (rng.below(4), c.len()) {
            (_, 0) => c.push(ALPHABET[rng.below(ALPHABET.len())]),
            (0, len) => {
                c.remove(rng.below(len));
            }
            (1, len) => {
                let i = rng.below(len);
                c.insert(i, c[i]);
            }
            (2, len) if len > 1 => {
                let i = rng.below(len - 1);
                c.swap(i, i + 1);
            }
            (_, len) => c[rng.below(len)] = ALPHABET[rng.below(ALPHABET.len())],
        }
        out.push(c.into_iter().collect());
    }
    out
}

/// Which implementation a format is compared with: jsonschema does not assert `idn-hostname`
/// and `idn-email` (it accepts every string), so those go to Python's `idna` and
/// `email-validator` (`tests/py/format_reference.py`, in the project's virtualenv).
fn python_reference(format: &str) -> bool {
    matches!(format, "idn-hostname" | "idn-email")
}

/// A divergence from the reference that the RFC decides in our favour: the format, why, and
/// whether a case (the string and our verdict) is of that kind.
type Divergence = (&'static str, &'static str, fn(&str, bool) -> bool);

fn has_label(s: &str, f: impl Fn(&str) -> bool) -> bool {
    s.split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}']).any(f)
}

/// Where a reference departs from the RFC, each kind named and explained.
const DIVERGENCES: &[Divergence] = &[
    (
        "hostname",
        "an A-label with an upper-case ACE prefix (XN--): RFC 5890 §2.3.1 lets 'xn--' take any \
         capitalization; jsonschema reads the lower-case prefix only",
        |s, ours| {
            ours && has_label(s, |l| {
                l.len() >= 4 && l[..4].eq_ignore_ascii_case("xn--") && !l.starts_with("xn--")
            })
        },
    ),
    (
        "hostname",
        "an A-label whose Punycode decodes to a string that is not a U-label (upper case, a \
         disallowed code point): RFC 5890 §2.3.2.1 requires one; jsonschema decodes the Punycode only",
        |s, ours| !ours && has_label(s, |l| l.starts_with("xn--")),
    ),
    (
        "uri-template",
        "an apostrophe in a literal: RFC 6570 §2.1 excludes %x27 from `literals`; jsonschema admits it",
        |s, ours| !ours && s.contains('\''),
    ),
    (
        "regex",
        "valid only without the `u` flag (an identity escape of a character that is not syntax, \
         an unknown property name): formats are read as `pattern`s are, with `u` (2020-12 §6.4); \
         jsonschema's parser admits them",
        |s, ours| !ours && regress::Regex::new(s).is_ok(),
    ),
    (
        "idn-email",
        "upper case in a domain label that is not ASCII: RFC 6531 §3.3 asks for U-labels, which \
         have none (RFC 5892: DISALLOWED), as `idna` says for idn-hostname; email-validator \
         case-folds the domain by UTS 46 first",
        |s, ours| {
            !ours
                && s.rsplit_once('@').is_some_and(|(_, d)| {
                    has_label(d, |l| !l.is_ascii() && l.chars().any(char::is_uppercase))
                })
        },
    ),
    (
        "idn-hostname",
        "a trailing dot (the root label): `idna` accepts a fully qualified name, we follow \
         `hostname` and RFC 1123's host names, which have none",
        |s, ours| !ours && (s.ends_with(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'])),
    ),
];

/// The references' verdicts for `cases` of `format`, by Python, or `None` when the virtualenv
/// is missing (said by `missing`).
fn python_verdicts(format: &str, cases: &[String]) -> Option<Vec<bool>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let python = test_support::repo().join(".venv/bin/python");
    let usable = python.exists()
        && Command::new(&python)
            .args(["-c", "import idna, email_validator"])
            .status()
            .is_ok_and(|s| s.success());
    if !usable {
        test_support::python::missing(&format!(
            "{} with idna and email-validator is missing (run `bash .ci/python-venv`)",
            python.display()
        ));
        return None;
    }
    let mut child = Command::new(&python)
        .arg(test_support::repo().join("tests/py/format_reference.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the Python reference");
    let pairs: Vec<(&str, &str)> = cases.iter().map(|s| (format, s.as_str())).collect();
    let input = serde_json::to_vec(&pairs).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the Python reference failed");
    Some(serde_json::from_slice(&out.stdout).expect("a JSON array of verdicts"))
}

#[test]
fn differential_against_jsonschema() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut table: BTreeMap<&str, (usize, usize, BTreeMap<&str, usize>)> = BTreeMap::new();
    let mut unexplained = Vec::new();
    for (format, valid, invalid) in SAMPLES {
        let mut cases: Vec<String> = Vec::new();
        for s in valid.iter().chain(invalid.iter()) {
            cases.push((*s).to_owned());
            cases.extend(mutations(s, &mut rng, 60));
        }
        cases.sort();
        cases.dedup();
        let theirs: Vec<bool> = if python_reference(format) {
            match python_verdicts(format, &cases) {
                Some(v) => v,
                None => continue,
            }
        } else {
            let reference = jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(&json!({"format": format}))
                .unwrap();
            cases
                .iter()
                .map(|s| reference.is_valid(&json!(s)))
                .collect()
        };
        let row = table.entry(format).or_default();
        for (s, theirs) in cases.iter().zip(theirs) {
            row.0 += 1;
            let ours = string_conforms(format, s).expect("asserted");
            if ours == theirs {
                row.1 += 1;
                continue;
            }
            match DIVERGENCES
                .iter()
                .find(|(f, _, t)| f == format && t(s, ours))
            {
                Some((_, why, _)) => *row.2.entry(why).or_default() += 1,
                None => unexplained.push(format!(
                    "{format}: {s:?}: ours {}, reference {}",
                    verdict(ours),
                    verdict(theirs)
                )),
            }
        }
    }
    println!(
        "format                 cases  agree  explained divergences (reference: jsonschema; idn-*: Python idna, email-validator)"
    );
    let (mut all, mut agree) = (0, 0);
    for (format, (n, same, why)) in &table {
        all += n;
        agree += same;
        println!("{format:22} {n:5}  {same:5}  {}", n - same);
        for (w, k) in why {
            println!("    {k:4} {w}");
        }
    }
    println!("all                    {all:5}  {agree:5}  {}", all - agree);
    assert!(
        unexplained.is_empty(),
        "{} unexplained disagreements:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
}
