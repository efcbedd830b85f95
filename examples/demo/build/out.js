console.log('built');
