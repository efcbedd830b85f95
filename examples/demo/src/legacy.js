const answer = 42;
const name = 'demo';
module.exports = { answer, name };
