"""Every language: hello world, a stdin sum, a compile error, a runtime error
(exit code and signal), an infinite loop, a memory hog and an output flood,
each with its expected verdict, on both backends."""

from __future__ import annotations

import pytest

from service.judge.judge import Judge
from service.models.submission import Submission
from service.models.verdict import Verdict

HELLO, SUM, COMPILE_ERROR, EXIT_CODE, SIGNAL, LOOP, MEMORY, FLOOD = (
    "hello", "sum", "compile_error", "exit_code", "signal", "loop", "memory", "flood",
)

PROGRAMS: dict[str, dict[str, str]] = {
    "python": {
        HELLO: 'print("hello world")',
        SUM: "print(sum(map(int, input().split())))",
        COMPILE_ERROR: "def f(:\n    pass",
        EXIT_CODE: "import sys; sys.exit(3)",
        SIGNAL: "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)",
        LOOP: "while True: pass",
        MEMORY: "x = []\nwhile True: x.append(bytearray(1 << 20))",
        FLOOD: "while True: print('x' * 4096)",
    },
    "c": {
        HELLO: '#include <stdio.h>\nint main(void){puts("hello world");return 0;}',
        SUM: '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}',
        COMPILE_ERROR: "int main(void){ return missing; }",
        EXIT_CODE: "int main(void){ return 3; }",
        SIGNAL: "int main(void){ volatile int *p = 0; return *p; }",
        LOOP: "int main(void){ for(;;); }",
        MEMORY: "#include <stdlib.h>\n#include <string.h>\nint main(void){for(;;){char*p=malloc(1<<20);memset(p,1,1<<20);}}",
        FLOOD: '#include <stdio.h>\nint main(void){for(;;)fputs("xxxxxxxxxxxxxxxx",stdout);}',
    },
    "cpp": {
        HELLO: '#include <iostream>\nint main(){std::cout<<"hello world\\n";}',
        SUM: "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}",
        COMPILE_ERROR: "int main(){ return missing; }",
        EXIT_CODE: "int main(){ return 3; }",
        SIGNAL: "#include <cstdlib>\nint main(){ std::abort(); }",
        LOOP: "int main(){ for(;;); }",
        MEMORY: "#include <vector>\n#include <cstring>\nint main(){std::vector<char*> v;for(;;){char*p=new char[1<<20];std::memset(p,1,1<<20);v.push_back(p);}}",
        FLOOD: "#include <iostream>\nint main(){for(;;)std::cout<<\"xxxxxxxxxxxxxxxx\";}",
    },
    "java": {
        HELLO: 'public class Main { public static void main(String[] a) { System.out.println("hello world"); } }',
        SUM: "import java.util.*;\npublic class Solution { public static void main(String[] a) {\n"
             "Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }",
        COMPILE_ERROR: "public class Main { public static void main(String[] a) { int x = \"s\"; } }",
        EXIT_CODE: "public class Main { public static void main(String[] a) { System.exit(3); } }",
        SIGNAL: "public class Main { public static void main(String[] a) throws Exception {\n"
                "java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField(\"theUnsafe\");\n"
                "f.setAccessible(true); ((sun.misc.Unsafe) f.get(null)).putAddress(0, 0); } }",  # JVM crash: SIGABRT
        LOOP: "public class Main { public static void main(String[] a) { long i = 0; while (true) i++; } }",
        MEMORY: "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
                "List<long[]> l = new ArrayList<>(); while (true) l.add(new long[1 << 17]); } }",
        FLOOD: "public class Main { public static void main(String[] a) { while (true) System.out.print(\"xxxxxxxxxxxxxxxx\"); } }",
    },
    "javascript": {
        HELLO: 'console.log("hello world");',
        SUM: "const [a, b] = require('fs').readFileSync(0, 'utf8').split(/\\s+/).map(Number);\nconsole.log(a + b);",
        COMPILE_ERROR: "function f( {",
        EXIT_CODE: "process.exit(3);",
        SIGNAL: "process.kill(process.pid, 'SIGSEGV');",
        LOOP: "while (true) {}",
        MEMORY: "const a = []; while (true) a.push(new Array(1 << 16).fill(1.5));",
        FLOOD: "const s = 'x'.repeat(4096); while (true) process.stdout.write(s);",
    },
    "typescript": {
        HELLO: 'const greeting: string = "hello world";\nconsole.log(greeting);',
        SUM: "const [a, b]: number[] = require('fs').readFileSync(0, 'utf8').split(/\\s+/).map(Number);\nconsole.log(a + b);",
        COMPILE_ERROR: "const n: number = 'not a number';\nconsole.log(n);",
        EXIT_CODE: "process.exit(3);",
        SIGNAL: "process.kill(process.pid, 'SIGSEGV');",
        LOOP: "while (true) {}",
        MEMORY: "const a: number[][] = []; while (true) a.push(new Array(1 << 16).fill(1.5));",
        FLOOD: "const s: string = 'x'.repeat(4096); while (true) process.stdout.write(s);",
    },
    "go": {
        HELLO: 'package main\nimport "fmt"\nfunc main() { fmt.Println("hello world") }',
        SUM: 'package main\nimport "fmt"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }',
        COMPILE_ERROR: 'package main\nimport "fmt"\nfunc main() { x := 1; fmt.Println("unused x") }',
        EXIT_CODE: 'package main\nimport "os"\nfunc main() { os.Exit(3) }',
        SIGNAL: 'package main\nimport "syscall"\nfunc main() { syscall.Kill(syscall.Getpid(), syscall.SIGKILL) }',
        LOOP: "package main\nfunc main() { for {} }",
        MEMORY: "package main\nfunc main() { var s [][]byte; for { b := make([]byte, 1<<20); for i := range b { b[i] = 1 }; s = append(s, b) } }",
        FLOOD: 'package main\nimport ("bufio"; "os")\nfunc main() { w := bufio.NewWriter(os.Stdout); for { w.WriteString("xxxxxxxxxxxxxxxx") } }',
    },
    "rust": {
        HELLO: 'fn main() { println!("hello world"); }',
        SUM: "use std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap();\n"
             "let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect(); println!(\"{}\", v[0] + v[1]); }",
        COMPILE_ERROR: "fn main() { let x: i32 = \"s\"; }",
        EXIT_CODE: "fn main() { std::process::exit(3); }",
        SIGNAL: "fn main() { std::process::abort(); }",
        LOOP: "fn main() { loop {} }",
        MEMORY: "fn main() { let mut v: Vec<Vec<u8>> = Vec::new(); loop { v.push(vec![1u8; 1 << 20]); } }",
        FLOOD: "use std::io::Write;\nfn main() { let o = std::io::stdout(); let mut l = o.lock(); loop { l.write_all(b\"xxxxxxxxxxxxxxxx\").unwrap(); } }",
    },
    "bash": {
        HELLO: "echo hello world",
        SUM: "read a b\necho $((a + b))",
        COMPILE_ERROR: "if then fi (",
        EXIT_CODE: "exit 3",
        SIGNAL: "kill -SEGV $$",
        LOOP: "while :; do :; done",
        MEMORY: "x=$(head -c 200000000 /dev/zero | tr '\\0' 'a'); echo ${#x}",
        FLOOD: "yes xxxxxxxxxxxxxxxx",
    },
}

EXPECTED = {
    HELLO: (Verdict.accepted, "", "hello world\n"),
    SUM: (Verdict.accepted, "20 22\n", "42\n"),
    COMPILE_ERROR: (Verdict.compile_error, "", ""),
    EXIT_CODE: (Verdict.runtime_error, "", ""),
    SIGNAL: (Verdict.runtime_error, "", ""),
    LOOP: (Verdict.time_limit_exceeded, "", ""),
    MEMORY: (Verdict.memory_limit_exceeded, "", ""),
    FLOOD: (Verdict.output_limit_exceeded, "", ""),
}
LIMITS = {"time_limit_s": 1, "wall_time_limit_s": 3, "output_limit_bytes": 1 << 20}

CASES = [(language, kind) for language in PROGRAMS for kind in EXPECTED]


def test_node_output_is_never_cut_at_exit(judge: Judge) -> None:
    expected = "x" * 100 + "\n"
    code = "const line = 'x'.repeat(100) + '\\n';\nfor (let i = 0; i < 50000; i++) process.stdout.write(line);\nprocess.exit(0);"
    result = judge.score(Submission.model_validate(
        {"language": "javascript", "code": code, "tests": [{"expected_output": expected * 50000}]}))
    assert result.verdict == Verdict.accepted, result.tests[0].reason


@pytest.mark.parametrize(("language", "kind"), CASES, ids=[f"{lang}-{kind}" for lang, kind in CASES])
def test_language_behaviour(judge: Judge, language: str, kind: str) -> None:
    if language not in judge.backend.offered_languages():
        pytest.fail(f"{language} is not offered on the {judge.backend.name} backend")
    verdict, stdin, stdout = EXPECTED[kind]
    submission = Submission.model_validate(
        {"language": language, "code": PROGRAMS[language][kind], "tests": [{"input": stdin, "expected_output": stdout}],
         "limits": {**LIMITS, "memory_limit_mb": 128 if kind == MEMORY else 256}}
    )
    result = judge.score(submission)
    test = result.tests[0] if result.tests else None
    detail = (result.compile.log if result.compile else "", test.reason if test else None, test.stderr[-500:] if test else "")
    assert result.verdict == verdict, detail
    if kind == EXIT_CODE:
        assert test is not None and test.exit_code == 3
    if kind == SIGNAL:
        assert test is not None and test.signal is not None and test.exit_code is None
    if kind == COMPILE_ERROR:
        assert result.compile is not None and result.compile.status == "error" and result.compile.log
        assert result.reward == 0.0
