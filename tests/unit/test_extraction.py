from __future__ import annotations

from trainer_client.extraction import completion_text, extract_code

ANSWER = """Let me think.
```text
not code
```
First try:
```python
print(1)
```
Better:
```py
print(2)
```
And in C++ for fun:
```cpp
int main() {}
```
"""


def test_last_block_of_the_requested_language() -> None:
    assert extract_code(ANSWER, "python") == "print(2)\n"
    assert extract_code(ANSWER, "cpp") == "int main() {}\n"


def test_else_last_block_else_none() -> None:
    assert extract_code(ANSWER, "rust") == "int main() {}\n"
    assert extract_code("no code here, just words", "python") is None
    assert extract_code("```python\n\n```", "python") is None


def test_policies() -> None:
    assert extract_code(ANSWER, "python", policy="last_block") == "int main() {}\n"
    assert extract_code("x = 1", "python", policy="raw") == "x = 1"


def test_unterminated_fence_counts() -> None:
    assert extract_code("```python\nprint(3)\n", "python") == "print(3)\n"


def test_conversational_completions() -> None:
    assert completion_text([{"role": "assistant", "content": "```python\nprint(4)\n```"}]) == "```python\nprint(4)\n```"
    assert completion_text("plain") == "plain"
