"""The shell parser: what each construct makes of a line (program, args, via), the lines it
cannot read, and that it never raises and never loses a command however it is wrapped."""

from __future__ import annotations

import shlex
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_hooks.shell_syntax import MAX_DEPTH, Command, Parsed, Redirect, _parse, parse

Row = tuple[str, tuple[str, ...], tuple[str, ...]]


def cmds(line: str) -> list[Row]:
    """The line's commands as (program, args, via), after checking it read without error."""
    parsed = parse(line)
    assert parsed.error is None, parsed.error
    return [(c.program, c.args, c.via) for c in parsed.commands]


def only(line: str) -> Command:
    (command,) = parse(line).commands
    return command


RM = ("rm", ("-rf", "/x"), ())

CASES: list[tuple[str, list[Row]]] = [
    # lists, pipelines, groups
    ("rm -rf /x; ls", [RM, ("ls", (), ())]),
    ("a && b || c & d", [("a", (), ()), ("b", (), ()), ("c", (), ()), ("d", (), ())]),
    ("a | b |& c", [("a", (), ()), ("b", (), ()), ("c", (), ())]),
    ("a\nb", [("a", (), ()), ("b", (), ())]),
    ("( rm -rf /x )", [RM]),
    ("{ rm -rf /x; }", [RM]),
    ("! rm -rf /x", [RM]),
    ("echo $(rm -rf /x)", [("echo", ("$(rm -rf /x)",), ()), ("rm", ("-rf", "/x"), ("$()",))]),
    ("echo `rm -rf /x`", [("echo", ("`rm -rf /x`",), ()), ("rm", ("-rf", "/x"), ("$()",))]),
    ('echo "$(rm -rf /x)"', [("echo", ("$(rm -rf /x)",), ()), ("rm", ("-rf", "/x"), ("$()",))]),
    ("diff <(ls a) b", [("diff", ("<(ls a)", "b"), ()), ("ls", ("a",), ("<()",))]),
    ("if a; then b; elif c; then d; else e; fi", [(x, (), ()) for x in "abcde"]),
    ("for i in 1 2; do rm -rf /x; done", [RM]),
    ("while true; do rm -rf /x; done", [("true", (), ()), RM]),
    ("until false; do rm -rf /x; done", [("false", (), ()), RM]),
    ("case $x in a) rm -rf /x;; b|c) ls;; esac", [RM, ("ls", (), ())]),
    ("f() { rm -rf /x; }", [RM]),
    ("function g { rm -rf /x; }", [RM]),
    ("[[ -f x ]] && (( y++ )) && rm -rf /x", [RM]),
    # unquoting and paths
    ("\\rm -rf /x", [RM]),
    ("r''m -rf /x", [RM]),
    ('"rm" -rf /x', [RM]),
    ("'r'\"m\" -rf /x", [RM]),
    ("$'\\x72m' -rf /x", [RM]),
    ('$"rm" -rf /x', [RM]),
    ("/usr/bin/git status", [("git", ("status",), ())]),
    ("./x y", [("x", ("y",), ())]),
    ('echo "a \\"b\\" $c"', [("echo", ('a "b" $c',), ())]),
    ("echo a\\ b", [("echo", ("a b",), ())]),
    # assignments, remembered
    ("FOO=1 rm -rf /x", [RM]),
    ("D=/", [("", (), ())]),
    ("D=/; rm -rf $D", [("", (), ()), ("rm", ("-rf", "/"), ())]),
    ('D=/; rm -rf "${D}"', [("", (), ()), ("rm", ("-rf", "/"), ())]),
    ("export D=/; rm -rf $D", [("export", ("D=/",), ()), ("rm", ("-rf", "/"), ())]),
    ("local D=/x && rm -rf $D", [("local", ("D=/x",), ()), RM]),
    ("X=rm; $X -rf /x", [("", (), ()), RM]),
    ("rm -rf $HOME ${X:-y} ~", [("rm", ("-rf", "$HOME", "${X:-y}", "~"), ())]),
    (
        "docker rm $(docker ps -aq)",
        [("docker", ("rm", "$(docker ps -aq)"), ()), ("docker", ("ps", "-aq"), ("$()",))],
    ),
    # shells as code runners
    (
        "bash -c 'rm -rf /x'",
        [("bash", ("-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("bash -c",))],
    ),
    ("sh -c 'rm -rf /x'", [("sh", ("-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("sh -c",))]),
    ("zsh -c 'rm -rf /x'", [("zsh", ("-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("zsh -c",))]),
    (
        "dash -c 'rm -rf /x'",
        [("dash", ("-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("dash -c",))],
    ),
    ("ksh -c 'rm -rf /x'", [("ksh", ("-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("ksh -c",))]),
    (
        "bash -lc 'rm -rf /x'",
        [("bash", ("-lc", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("bash -c",))],
    ),
    (
        "bash -x -c 'rm -rf /x'",
        [("bash", ("-x", "-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("bash -c",))],
    ),
    ('eval "rm -rf" /x', [("eval", ("rm -rf", "/x"), ()), ("rm", ("-rf", "/x"), ("eval",))]),
    (
        "bash <<EOF\nrm -rf /x\nEOF",
        [("bash", (), ()), ("rm", ("-rf", "/x"), ("heredoc to bash",))],
    ),
    ("sh <<< 'rm -rf /x'", [("sh", (), ()), ("rm", ("-rf", "/x"), ("herestring to sh",))]),
    ("bash script.sh", [("bash", ("script.sh",), ())]),
    (
        "echo 'rm -rf /x' | sh",
        [("echo", ("rm -rf /x",), ()), ("sh", (), ()), ("rm", ("-rf", "/x"), ("pipe to sh",))],
    ),
    (
        "printf 'rm -rf /x\\n' | bash",
        [
            ("printf", ("rm -rf /x\\n",), ()),
            ("bash", (), ()),
            ("rm", ("-rf", "/x"), ("pipe to bash",)),
        ],
    ),
    (
        "cat <<EOF | sh\nrm -rf /x\nEOF",
        [("cat", (), ()), ("sh", (), ()), ("rm", ("-rf", "/x"), ("pipe to sh",))],
    ),
    ("cat <<EOF\nrm -rf /x\nEOF", [("cat", (), ())]),
    # wrappers
    ("sudo rm -rf /x", [("rm", ("-rf", "/x"), ("sudo",))]),
    ("sudo -u bob -E -- rm -rf /x", [("rm", ("-rf", "/x"), ("sudo",))]),
    ("sudo -s rm -rf /x", [("rm", ("-rf", "/x"), ("sudo",))]),
    ("sudo -i rm -rf /x", [("rm", ("-rf", "/x"), ("sudo",))]),
    ("sudo -l", [("sudo", ("-l",), ())]),
    ("doas -u root rm -rf /x", [("rm", ("-rf", "/x"), ("doas",))]),
    ("env -i -u HOME X=1 rm -rf /x", [("rm", ("-rf", "/x"), ("env",))]),
    ("env -S 'rm -rf /x'", [("rm", ("-rf", "/x"), ("env",))]),
    ("env", [("env", (), ())]),
    ("command rm -rf /x", [("rm", ("-rf", "/x"), ("command",))]),
    ("command -p rm -rf /x", [("rm", ("-rf", "/x"), ("command",))]),
    ("command -v rm", [("command", ("-v", "rm"), ())]),
    ("command -V rm", [("command", ("-V", "rm"), ())]),
    ("builtin rm -rf /x", [("rm", ("-rf", "/x"), ("builtin",))]),
    ("exec -a name -c rm -rf /x", [("rm", ("-rf", "/x"), ("exec",))]),
    ("nohup rm -rf /x &", [("rm", ("-rf", "/x"), ("nohup",))]),
    ("nice -n 10 rm -rf /x", [("rm", ("-rf", "/x"), ("nice",))]),
    ("nice -5 rm -rf /x", [("rm", ("-rf", "/x"), ("nice",))]),
    ("ionice -c 3 -n 7 -t rm -rf /x", [("rm", ("-rf", "/x"), ("ionice",))]),
    ("time rm -rf /x", [("rm", ("-rf", "/x"), ("time",))]),
    ("time -p rm -rf /x", [("rm", ("-rf", "/x"), ("time",))]),
    ("time", [("time", (), ())]),
    ("timeout 5 rm -rf /x", [("rm", ("-rf", "/x"), ("timeout",))]),
    ("timeout -s KILL -k 2 5s rm -rf /x", [("rm", ("-rf", "/x"), ("timeout",))]),
    ("timeout --signal=KILL 5 rm -rf /x", [("rm", ("-rf", "/x"), ("timeout",))]),
    ("stdbuf -o L -eL rm -rf /x", [("rm", ("-rf", "/x"), ("stdbuf",))]),
    ("setsid -f -w rm -rf /x", [("rm", ("-rf", "/x"), ("setsid",))]),
    ("chroot --userspec=a:b /mnt rm -rf /x", [("rm", ("-rf", "/x"), ("chroot",))]),
    ("watch -n 5 rm -rf /x", [("rm", ("-rf", "/x"), ("watch",))]),
    ("watch 'rm -rf /x; ls'", [("rm", ("-rf", "/x"), ("watch",)), ("ls", (), ("watch",))]),
    ("unbuffer rm -rf /x", [("rm", ("-rf", "/x"), ("unbuffer",))]),
    ("strace -o log rm -rf /x", [("rm", ("-rf", "/x"), ("strace",))]),
    ("flock /tmp/l rm -rf /x", [("rm", ("-rf", "/x"), ("flock",))]),
    ("flock /tmp/l -c 'rm -rf /x'", [("rm", ("-rf", "/x"), ("flock",))]),
    ("ls | xargs rm -rf /x", [("ls", (), ()), ("rm", ("-rf", "/x"), ("xargs",))]),
    (
        "ls | xargs -0 -n 1 -P 4 -I {} rm -rf /x",
        [("ls", (), ()), ("rm", ("-rf", "/x"), ("xargs",))],
    ),
    ("xargs", [("xargs", (), ())]),
    (
        "su -c 'rm -rf /x' root",
        [("su", ("-c", "rm -rf /x", "root"), ()), ("rm", ("-rf", "/x"), ("su -c",))],
    ),
    (
        "su - root -c 'rm -rf /x'",
        [("su", ("-", "root", "-c", "rm -rf /x"), ()), ("rm", ("-rf", "/x"), ("su -c",))],
    ),
    ("runuser -u bob -- rm -rf /x", [("rm", ("-rf", "/x"), ("runuser",))]),
    (
        "ssh -p 22 -i key -o X=y host rm -rf /x",
        [
            ("ssh", ("-p", "22", "-i", "key", "-o", "X=y", "host", "rm", "-rf", "/x"), ()),
            ("rm", ("-rf", "/x"), ("ssh",)),
        ],
    ),
    ("ssh host", [("ssh", ("host",), ())]),
    (
        "sudo env X=1 timeout 5 nice -n 5 rm -rf /x",
        [("rm", ("-rf", "/x"), ("sudo", "env", "timeout", "nice"))],
    ),
    (
        "sudo bash -c 'rm -rf /x'",
        [("bash", ("-c", "rm -rf /x"), ("sudo",)), ("rm", ("-rf", "/x"), ("sudo", "bash -c"))],
    ),
    # find
    (
        "find . -exec rm -rf {} \\;",
        [
            ("find", (".", "-exec", "rm", "-rf", "{}", ";"), ()),
            ("rm", ("-rf", "{}"), ("find -exec",)),
        ],
    ),
    (
        "find . -execdir rm {} + -ok ls ';'",
        [
            ("find", (".", "-execdir", "rm", "{}", "+", "-ok", "ls", ";"), ()),
            ("rm", ("{}",), ("find -exec",)),
            ("ls", (), ("find -exec",)),
        ],
    ),
    ("find . -name '*.o' -delete", [("find", (".", "-name", "*.o", "-delete"), ())]),
    # interpreters
    (
        "python3 -c 'import os; os.system(\"rm -rf /x\")'",
        [
            ("python3", ("-c", 'import os; os.system("rm -rf /x")'), ()),
            ("rm", ("-rf", "/x"), ("python -c",)),
        ],
    ),
    (
        'python3.11 -c \'import subprocess; subprocess.run(["rm", "-rf", "/x"])\'',
        [
            ("python3.11", ("-c", 'import subprocess; subprocess.run(["rm", "-rf", "/x"])'), ()),
            ("rm", ("-rf", "/x"), ("python -c",)),
        ],
    ),
    (
        "python -c 'import subprocess; subprocess.call(\"rm -rf /x\", shell=True)'",
        [
            ("python", ("-c", 'import subprocess; subprocess.call("rm -rf /x", shell=True)'), ()),
            ("rm", ("-rf", "/x"), ("python -c",)),
        ],
    ),
    (
        "$PYTHON -c 'import os; os.system(\"rm -rf /x\")'",
        [
            ("$PYTHON", ("-c", 'import os; os.system("rm -rf /x")'), ()),
            ("rm", ("-rf", "/x"), ("python -c",)),
        ],
    ),
    (
        "perl -e 'system(\"rm -rf /x\")'",
        [("perl", ("-e", 'system("rm -rf /x")'), ()), ("rm", ("-rf", "/x"), ("perl -e",))],
    ),
    (
        "perl -E '`rm -rf /x`'",
        [("perl", ("-E", "`rm -rf /x`"), ()), ("rm", ("-rf", "/x"), ("perl -e",))],
    ),
    (
        "ruby -e 'exec \"rm -rf /x\"'",
        [("ruby", ("-e", 'exec "rm -rf /x"'), ()), ("rm", ("-rf", "/x"), ("ruby -e",))],
    ),
    (
        "ruby -e '%x(rm -rf /x)'",
        [("ruby", ("-e", "%x(rm -rf /x)"), ()), ("rm", ("-rf", "/x"), ("ruby -e",))],
    ),
    (
        'node -e \'require("child_process").execSync("rm -rf /x")\'',
        [
            ("node", ("-e", 'require("child_process").execSync("rm -rf /x")'), ()),
            ("rm", ("-rf", "/x"), ("node -e",)),
        ],
    ),
    (
        'node --eval \'cp.spawnSync("rm", ["-rf", "/x"])\'',
        [
            ("node", ("--eval", 'cp.spawnSync("rm", ["-rf", "/x"])'), ()),
            ("rm", ("-rf", "/x"), ("node -e",)),
        ],
    ),
    (
        "php -r 'shell_exec(\"rm -rf /x\");'",
        [("php", ("-r", 'shell_exec("rm -rf /x");'), ()), ("rm", ("-rf", "/x"), ("php -r",))],
    ),
    (
        "lua -e 'os.execute(\"rm -rf /x\")'",
        [("lua", ("-e", 'os.execute("rm -rf /x")'), ()), ("rm", ("-rf", "/x"), ("lua -e",))],
    ),
    (
        "python3 <<EOF\nimport os\nos.system('rm -rf /x')\nEOF",
        [("python3", (), ()), ("rm", ("-rf", "/x"), ("python -c",))],
    ),
    (
        "python - <<< 'import os; os.popen(\"rm -rf /x\")'",
        [("python", ("-",), ()), ("rm", ("-rf", "/x"), ("python -c",))],
    ),
    ("python3 script.py", [("python3", ("script.py",), ())]),
    ("python3 -m http.server", [("python3", ("-m", "http.server"), ())]),
    # redirections don't hide the command
    ("rm -rf /x > /dev/null 2>&1", [RM]),
    ("rm > f -rf /x", [RM]),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_each_construct_reads_as_its_simple_commands(line: str, expected: list[Row]) -> None:
    assert cmds(line) == expected


def test_assignments_redirects_paths_and_text() -> None:
    c = only("FOO=1 BAR='a b' /usr/bin/git status > /dev/sda 2>&1 &>>log < in")
    assert (c.program, c.path, c.assignments) == (
        "git",
        "/usr/bin/git",
        (("FOO", "1"), ("BAR", "a b")),
    )
    assert c.redirects == (
        Redirect(">", "/dev/sda"),
        Redirect("2>", "&1"),
        Redirect("&>>", "log"),
        Redirect("<", "in"),
    )
    assert c.text == "FOO=1 BAR='a b' /usr/bin/git status > /dev/sda 2>&1 &>>log < in"
    assert only("cat <<-'EOF'\n\tbody\n\tEOF").redirects == (Redirect("<<-", "body\n"),)
    assert only("cat <<< 'x y'").redirects == (Redirect("<<<", "x y"),)
    assert only("> /dev/sda").redirects == (Redirect(">", "/dev/sda"),)
    assert only("env X=1 rm x").assignments == (("X", "1"),)
    d = only("$X -rf /")
    assert (d.program, d.dynamic) == ("$X", True)


def test_upstream_is_the_earlier_stages_and_the_substitutions_read() -> None:
    curl, sh, rm = parse("curl -s x | sh | tee log").commands[:3]
    assert sh.upstream == (curl,) and rm.upstream == (curl, sh)
    bash, curl = parse("bash <(curl x)").commands
    assert (bash.program, bash.upstream) == ("bash", (curl,))
    sh, wget = parse("sh < <(wget -O- x)").commands
    assert sh.upstream == (wget,)
    find, rm = parse("find . -name x | xargs rm").commands
    assert rm.via == ("xargs",) and rm.upstream == (find,)


def test_inline_code_is_kept() -> None:
    assert only("python3 -c 'print(1)'").inline == ("python", "print(1)")
    assert only("perl -lne 'print' f").inline == ("perl", "print")
    assert only("node -p '1+1'").inline == ("node", "1+1")
    assert only("python3 <<'EOF'\nprint(1)\nEOF").inline == ("python", "print(1)\n")
    assert only("python3 x.py").inline is None
    # an interpreter named by a variable or a look-up that says which
    assert only("$PYTHON -c 'print(1)'").inline == ("python", "print(1)")
    assert only("${which_python} -c 'print(1)'").inline == ("python", "print(1)")
    assert only("$PY3 -c 'print(1)'").inline == ("python", "print(1)")
    assert only("$NODE_BIN -e '1+1'").inline == ("node", "1+1")
    assert parse("$(command -v perl) -e 'print 1'").commands[0].inline == ("perl", "print 1")
    assert only("$EVALUATOR -c 'print(1)'").inline is None  # no language among its words
    assert only("$X -c 'print(1)'").inline is None
    assert only("$PYTHON x.py").inline is None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("echo 'abc", "unterminated quote"),
        ('echo "abc', "unterminated quote"),
        ("rm -rf $(", "unclosed '$('"),
        ("if then", "syntax error"),
        ("bash -c 'rm -rf $('", "unclosed '$('"),
    ],
)
def test_an_unreadable_line_says_why_and_keeps_what_it_read(line: str, reason: str) -> None:
    parsed = parse(line)
    assert parsed.error is not None and parsed.error.startswith(reason)


def test_what_could_be_read_of_a_broken_line_is_listed() -> None:
    parsed = parse("rm -rf /x; echo 'abc")
    assert parsed.error and ("rm", ("-rf", "/x"), ()) in [
        (c.program, c.args, c.via) for c in parsed.commands
    ]


def test_nesting_past_the_limit_is_an_error() -> None:
    assert parse("eval " * MAX_DEPTH + "rm -rf /x").error is None
    deep = parse("eval " * (MAX_DEPTH + 1) + "rm -rf /x").error
    assert deep is not None and "nested" in deep
    assert parse("(" * 400 + "ls" + ")" * 400).error is not None


def test_blank_huge_and_odd_lines() -> None:
    assert parse("") == Parsed("") and parse("  \n\t") == Parsed("  \n\t")
    huge = parse("a" * 100_000)
    assert huge.error == "too long to read" and huge.commands == ()
    for line in ("rm \x00 -rf /", "rm \ud800 x", "é ü 日本 rm", "a && " * 3000 + "b"):
        assert isinstance(parse(line), Parsed)
    long_chain = parse("a && " * 3000 + "b")
    assert long_chain.error is None and len(long_chain.commands) == 3001


def test_threads_share_the_parser_safely() -> None:
    lines = [f"rm -rf /x{i} | sh -c 'ls {i}'" for i in range(200)]
    results: list[list[Parsed]] = []

    def work() -> None:
        results.append([_parse(line) for line in lines])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[0] for r in results) and len(results) == 4


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_is_read_without_raising(line: str) -> None:
    parsed = _parse(line)
    assert isinstance(parsed, Parsed)
    assert parsed.error is None or not parsed.error.startswith("could not be read")


WRAPS = [
    "sudo", "sudo -u", "env", "timeout", "nice", "nohup", "command", "subshell", "group",
    "bash -c", "sh -c", "eval", "$()", "and", "seq", "or", "pipe", "if", "xargs",
]  # fmt: skip


_STATEMENTS = ("(", "{", "if", "true", "false", "ls", "echo", "rm -rf /x ;")


_PREFIXES = ("sudo", "sudo -u", "env", "timeout", "nice", "nohup", "command", "xargs")


def _wrap(kind: str, line: str) -> str:
    if kind in _PREFIXES and line.startswith(_STATEMENTS):
        line = f"bash -c {shlex.quote(line)}"  # a prefix wrapper runs a program, not a statement
    return {
        "sudo": f"sudo {line}",
        "sudo -u": f"sudo -u root -- {line}",
        "env": f"env X=1 {line}",
        "timeout": f"timeout 5 {line}",
        "nice": f"nice -n 5 {line}",
        "nohup": f"nohup {line}",
        "command": f"command {line}",
        "subshell": f"( {line} )",
        "group": f"{{ {line}; }}",
        "bash -c": f"bash -c {shlex.quote(line)}",
        "sh -c": f"sh -c {shlex.quote(line)}",
        "eval": f"eval {shlex.quote(line)}",
        "$()": f"echo $( {line} )",  # `$((` would open arithmetic
        "and": f"true && {line}",
        "seq": f"{line} ; true",
        "or": f"false || {line}",
        "pipe": f"ls | {line}",
        "if": f"if true; then {line}; fi",
        "xargs": f"ls | xargs {line}",
    }[kind]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WRAPS), max_size=5))
def test_a_wrapped_command_is_still_found(kinds: list[str]) -> None:
    line = "rm -rf /x"
    for kind in kinds:
        line = _wrap(kind, line)
    parsed = _parse(line)
    assert parsed.error is None, (line, parsed.error)
    assert any(c.program == "rm" and "-rf" in c.args and "/x" in c.args for c in parsed.commands), (
        line
    )


@pytest.mark.parametrize(
    "line",
    [
        "echo 'rm -rf /x'",
        'grep "rm -rf" f',
        'git commit -m "rm -rf /x"',
        "cat <<EOF\nrm -rf /x\nEOF",
        "echo rm -rf /x > notes.txt",
        "printf 'rm -rf /x' > f",
        "python3 -c 'print(\"rm -rf /x\")'",
        "bash script.sh 'rm -rf /x'",
    ],
)
def test_the_same_text_as_data_is_no_command(line: str) -> None:
    assert "rm" not in [c.program for c in parse(line).commands]


def test_characters_that_crash_the_grammar_never_reach_it():
    # tree-sitter-bash's lexer dies with SIGSEGV on some characters outside the BMP after `{`;
    # the parser gives the grammar ASCII only. Run in a child: a crash must fail this test, not
    # kill the test run (or, in production, the agent).
    import subprocess
    import sys

    crashers = ["x{\U000f0000h", "~\x97b:{\U00108712\x08h", "b:{\U00108712\x08h", "a{\U00100000}"]
    code = (
        "import sys, json\n"
        "from hermes_hooks.shell_syntax import _parse\n"
        "for line in json.loads(sys.stdin.read()):\n"
        "    print(_parse(line).commands[0].text == line)\n"
    )
    import json

    run = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(crashers),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True"] * len(crashers)  # the text is the original's


@pytest.mark.parametrize(
    ("line", "runs"),
    [
        ("((pwd && rm -rf /home))", [("pwd", ()), ("rm", ("-rf", "/home"))]),
        ("bash -c '((rm -rf /x))'", [("rm", ("-rf", "/x"))]),
        ("((x=1+2))", []),
        ("for ((i=0;i<3;i++)); do echo ok; done", [("echo", ("ok",))]),
        ("echo $((1+2))", [("echo", ("$((1+2))",))]),
    ],
)
def test_double_parens_are_read_as_a_posix_sh_reads_them_too(line, runs):
    # bash: arithmetic; dash: a subshell in a subshell, which runs what is inside
    found = [(c.program, c.args) for c in parse(line).commands if c.program != "bash"]
    assert [r for r in runs if r not in found] == []
    if not runs:
        assert [c for c in found if c[0]] == []
